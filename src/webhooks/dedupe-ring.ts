import { createHash } from 'node:crypto';

const DEFAULT_DEDUPE_SIZE = 100;

/**
 * The last N accepted webhook event ids (spec: 100, in memory only, so a restart forgets them), in one
 * SharedArrayBuffer: the dedupe actor creates it, every HTTP thread attaches to it and checks and inserts ids
 * itself, without a message per event. A lock word (Atomics.compareExchange, Atomics.wait while another thread
 * holds it) makes check-and-insert atomic across threads; what it guards is a few dozen array accesses.
 *
 * An id is stored as its UTF-8 bytes when they fit a slot (64 bytes: a UUID is 36), else as their SHA-256, so an
 * id of any length is told apart from every other. A fixed ring of slots remembers the insertion order, so that the
 * (N+1)-th new id pushes the oldest out; an open-addressing table (linear probing, 2N entries or more) finds a
 * slot by the id's hash.
 */

/** Who attaches to the memory, and with which holder tag (non-zero, different per thread) it takes the lock. */
export interface DedupeRingHandle {
  readonly memory: SharedArrayBuffer;
  readonly holder: number;
}

/** What the intake asks of the thread that owns the ring (the dedupe actor serves it). */
export interface DedupeRingSource {
  /** The ring's memory and the lock tag of the front `front` (its instance name, e.g. `http-front#2`). */
  sharedRing(front: string): Promise<DedupeRingHandle>;
}

/** The memory was replaced by its owner (a thread died holding its lock); attach to the new one. */
export class DedupeRingRetiredError extends Error {
  override readonly name = 'DedupeRingRetiredError';
}

// Header words (Int32).
const LOCK = 0; // 0 = free, else the holder's tag
const WAITERS = 1; // threads in Atomics.wait on LOCK
const RETIRED = 2; // 1 once the owner replaced this memory
const NEXT = 3; // the ring slot the next new id takes
const COUNT = 4; // ids remembered now
const CAPACITY = 5;
const HEADER_WORDS = 8;

const KEY_BYTES = 64;
const EMPTY = -1;
/** Marks a slot's length word when its bytes are the id's SHA-256, not the id. */
const DIGEST = 0x10000;
const SPINS = 64;
const WAIT_MS = 5;
/** The tag of the thread that creates the memory. */
const OWNER = 1;

/** One per thread: the id being looked at, as stored. */
const scratch = new Uint8Array(KEY_BYTES);
const encoder = new TextEncoder();

export class DedupeRing {
  readonly memory: SharedArrayBuffer;
  readonly capacity: number;
  private readonly holder: number;
  private readonly header: Int32Array;
  private readonly hashes: Int32Array;
  private readonly lengths: Int32Array;
  /** Ring slot + 1 per entry; 0 = empty. */
  private readonly table: Int32Array;
  private readonly mask: number;
  private readonly bytes: Uint8Array;

  /** A new ring of `capacity` ids, or a view of one another thread created. */
  constructor(from: number | DedupeRingHandle = DEFAULT_DEDUPE_SIZE) {
    if (typeof from === 'number') {
      if (!Number.isInteger(from) || from < 1) {
        throw new RangeError(`dedupe ring capacity must be a positive integer, got ${from}`);
      }
      this.memory = new SharedArrayBuffer(byteLength(from));
      this.holder = OWNER;
      new Int32Array(this.memory, 0, HEADER_WORDS)[CAPACITY] = from;
    } else {
      this.memory = from.memory;
      this.holder = from.holder;
    }
    this.header = new Int32Array(this.memory, 0, HEADER_WORDS);
    this.capacity = this.header[CAPACITY]!;
    const cap = this.capacity;
    const tableSize = tableSizeFor(cap);
    let offset = HEADER_WORDS * 4;
    this.hashes = new Int32Array(this.memory, offset, cap);
    this.lengths = new Int32Array(this.memory, offset += cap * 4, cap);
    this.table = new Int32Array(this.memory, offset += cap * 4, tableSize);
    this.bytes = new Uint8Array(this.memory, offset + tableSize * 4, cap * KEY_BYTES);
    this.mask = tableSize - 1;
    if (typeof from === 'number') this.lengths.fill(EMPTY);
  }

  /** True if the id is new (and is now remembered); false if it was accepted before. */
  checkAndInsert(id: string): boolean {
    const length = encode(id);
    const hash = hashOf(length);
    this.lock();
    try {
      if (this.find(hash, length) !== -1) return false;
      const slot = this.header[NEXT]!;
      if (this.lengths[slot] !== EMPTY) this.remove(this.entryOf(slot));
      this.hashes[slot] = hash;
      this.lengths[slot] = length;
      this.bytes.set(scratch.subarray(0, length & (DIGEST - 1)), slot * KEY_BYTES);
      let entry = hash & this.mask;
      while (this.table[entry] !== 0) entry = (entry + 1) & this.mask;
      this.table[entry] = slot + 1;
      this.header[NEXT] = (slot + 1) % this.capacity;
      this.header[COUNT]!++;
      return true;
    } finally {
      this.unlock();
    }
  }

  /**
   * Forgets an id (its event could not be processed after all). Its slot is emptied too, so that a later
   * eviction of that slot cannot drop the id if it is admitted again meanwhile.
   */
  forget(id: string): void {
    const length = encode(id);
    const hash = hashOf(length);
    this.lock();
    try {
      const entry = this.find(hash, length);
      if (entry !== -1) this.remove(entry);
    } finally {
      this.unlock();
    }
  }

  has(id: string): boolean {
    const length = encode(id);
    const hash = hashOf(length);
    this.lock();
    try {
      return this.find(hash, length) !== -1;
    } finally {
      this.unlock();
    }
  }

  get size(): number {
    return Atomics.load(this.header, COUNT);
  }

  /** The tag of the thread holding the lock now; 0 when free. */
  get lockHolder(): number {
    return Atomics.load(this.header, LOCK);
  }

  get retired(): boolean {
    return Atomics.load(this.header, RETIRED) === 1;
  }

  /** The owner gives this memory up (a thread died holding the lock): threads waiting for it stop waiting. */
  retire(): void {
    Atomics.store(this.header, RETIRED, 1);
    Atomics.notify(this.header, LOCK);
  }

  /** The table entry holding the id in `scratch`, or -1. */
  private find(hash: number, length: number): number {
    const stored = length & (DIGEST - 1);
    for (let entry = hash & this.mask; ; entry = (entry + 1) & this.mask) {
      const slot = this.table[entry]! - 1;
      if (slot === -1) return -1;
      if (this.hashes[slot] === hash && this.lengths[slot] === length && this.sameBytes(slot, stored)) return entry;
    }
  }

  private sameBytes(slot: number, length: number): boolean {
    const base = slot * KEY_BYTES;
    for (let i = 0; i < length; i++) if (this.bytes[base + i] !== scratch[i]) return false;
    return true;
  }

  /** The table entry pointing at a used slot. */
  private entryOf(slot: number): number {
    let entry = this.hashes[slot]! & this.mask;
    while (this.table[entry] !== slot + 1) entry = (entry + 1) & this.mask;
    return entry;
  }

  /** Empties a table entry and its slot; later entries of the probe chain move up (no tombstones). */
  private remove(entry: number): void {
    this.lengths[this.table[entry]! - 1] = EMPTY;
    this.header[COUNT]!--;
    let hole = entry;
    for (let next = (hole + 1) & this.mask; this.table[next] !== 0; next = (next + 1) & this.mask) {
      const home = this.hashes[this.table[next]! - 1]! & this.mask;
      // The entry at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const staysPut = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (!staysPut) {
        this.table[hole] = this.table[next]!;
        hole = next;
      }
    }
    this.table[hole] = 0;
  }

  private lock(): void {
    const header = this.header;
    for (let attempt = 0; ; attempt++) {
      const holder = Atomics.compareExchange(header, LOCK, 0, this.holder);
      if (holder === 0) return;
      if (Atomics.load(header, RETIRED) === 1) throw new DedupeRingRetiredError('the dedupe ring was replaced');
      if (attempt < SPINS) continue;
      Atomics.add(header, WAITERS, 1);
      Atomics.wait(header, LOCK, holder, WAIT_MS);
      Atomics.sub(header, WAITERS, 1);
    }
  }

  private unlock(): void {
    Atomics.store(this.header, LOCK, 0);
    if (Atomics.load(this.header, WAITERS) > 0) Atomics.notify(this.header, LOCK, 1);
  }
}

/** A power of two with room for twice the capacity, so that probe chains stay short. */
function tableSizeFor(capacity: number): number {
  return 2 ** Math.ceil(Math.log2(capacity * 2));
}

function byteLength(capacity: number): number {
  return HEADER_WORDS * 4 + capacity * 8 + tableSizeFor(capacity) * 4 + capacity * KEY_BYTES;
}

/** Puts the id as stored into `scratch`; answers its length word (the byte count, DIGEST-marked for a digest). */
function encode(id: string): number {
  const { read, written } = encoder.encodeInto(id, scratch);
  if (read === id.length) return written;
  const digest = createHash('sha256').update(id, 'utf8').digest();
  scratch.set(digest);
  return DIGEST | digest.length;
}

/** FNV-1a over the stored bytes and their length word. */
function hashOf(length: number): number {
  let hash = 0x811c9dc5 ^ length;
  for (let i = 0, n = length & (DIGEST - 1); i < n; i++) hash = Math.imul(hash ^ scratch[i]!, 0x01000193);
  return hash;
}

/**
 * Bounds-checked little-endian reading and writing. Every length or offset that comes from the wire goes through
 * WireReader, which throws SmbProtocolError instead of reading out of range.
 */
import { SmbProtocolError } from './errors.js';

export class WireReader {
  constructor(
    readonly buf: Buffer,
    readonly what: string,
  ) {}

  get length(): number {
    return this.buf.length;
  }

  private check(offset: number, size: number): void {
    if (!Number.isInteger(offset) || offset < 0 || size < 0 || offset + size > this.buf.length) {
      throw new SmbProtocolError(`${this.what}: ${size} bytes at offset ${offset} exceed its ${this.buf.length} bytes`);
    }
  }

  u8(offset: number): number {
    this.check(offset, 1);
    return this.buf[offset]!;
  }
  u16(offset: number): number {
    this.check(offset, 2);
    return this.buf.readUInt16LE(offset);
  }
  u32(offset: number): number {
    this.check(offset, 4);
    return this.buf.readUInt32LE(offset);
  }
  u64(offset: number): bigint {
    this.check(offset, 8);
    return this.buf.readBigUInt64LE(offset);
  }
  /** A u64 that must fit a JS number (sizes, offsets). */
  u64n(offset: number): number {
    const v = this.u64(offset);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new SmbProtocolError(`${this.what}: value ${v} at offset ${offset} is too large`);
    return Number(v);
  }
  bytes(offset: number, size: number): Buffer {
    this.check(offset, size);
    return this.buf.subarray(offset, offset + size);
  }
  utf16(offset: number, size: number): string {
    if (size % 2 !== 0) throw new SmbProtocolError(`${this.what}: UTF-16 string of odd length ${size}`);
    return this.bytes(offset, size).toString('utf16le');
  }
  /** A sub-reader over [offset, offset+size). */
  sub(offset: number, size: number, what: string): WireReader {
    return new WireReader(this.bytes(offset, size), what);
  }
}

/** Windows FILETIME (100 ns since 1601) <-> ms since the Unix epoch. */
const FILETIME_UNIX_OFFSET_MS = 11644473600000n;
export function filetimeToMs(ft: bigint): number {
  if (ft === 0n) return 0;
  return Number(ft / 10000n - FILETIME_UNIX_OFFSET_MS);
}
export function msToFiletime(ms: number): bigint {
  return (BigInt(Math.round(ms)) + FILETIME_UNIX_OFFSET_MS) * 10000n;
}

export function utf16(s: string): Buffer {
  return Buffer.from(s, 'utf16le');
}

export function align8(n: number): number {
  return (n + 7) & ~7;
}

/**
 * The concurrency oracle's "other SMB client": what it holds on a file or folder while an operation runs, and the
 * holder that opens it (the project's SMB client, as its own user on its own connection) and lets go afterwards.
 * A lease holder acknowledges each break as SMB clients do (MS-SMB2 3.2.5.19.2), so that the server lets the
 * conflicting open through; the breaks it saw are counted, so that a lease condition that never met its break
 * shows up.
 */
import { randomBytes } from 'node:crypto';
import { Access, CreateOptions, Disposition, ShareAccess, type SmbShare } from '../../../../src/smb/index.js';
import { LockFlags } from '../../../../src/smb/messages/lock.js';
import { LeaseState, leaseBreakAck, OplockLevel } from '../../../../src/smb/messages/oplock.js';
import { FileHandle } from '../../../../src/smb/open.js';

export type Condition =
  | { kind: 'none' }
  /** An open with read access and this share mode (ShareAccess bits). */
  | { kind: 'open'; share: number }
  /** An open sharing everything, with a byte-range lock over part of the file. */
  | { kind: 'range lock'; exclusive: boolean }
  /** An open with read access, sharing everything, holding a lease of these LeaseState bits. */
  | { kind: 'lease'; state: number };

/** The bytes a range-lock holder locks: the start of the file, which every write of a whole file touches. */
const LOCKED = { offset: 0n, length: 4n };

const shareName = (share: number): string => ['READ', 'WRITE', 'DELETE'].filter((_, i) => share & (1 << i)).join('|') || 'none';
const leaseName = (state: number): string => ['R', 'H', 'W'].filter((_, i) => state & (1 << i)).join('');

export function conditionName(c: Condition): string {
  switch (c.kind) {
    case 'none': return 'nothing';
    case 'open': return `open sharing ${shareName(c.share)}`;
    case 'range lock': return `${c.exclusive ? 'exclusive' : 'shared'} range lock`;
    case 'lease': return `lease ${leaseName(c.state)}`;
  }
}

/** Every condition: nothing, the 8 share modes, the two range locks, a read-handle and a read-write-handle lease. */
export const CONDITIONS: readonly Condition[] = [
  { kind: 'none' },
  ...Array.from({ length: 8 }, (_, share): Condition => ({ kind: 'open', share })),
  { kind: 'range lock', exclusive: false },
  { kind: 'range lock', exclusive: true },
  { kind: 'lease', state: LeaseState.READ | LeaseState.HANDLE },
  { kind: 'lease', state: LeaseState.READ | LeaseState.WRITE | LeaseState.HANDLE },
];

export interface Holder {
  /** Breaks of its lease the server sent (each acknowledged). */
  readonly breaks: number;
  /** Closes the holder's open. */
  release(): Promise<void>;
}

const NOTHING_HELD: Holder = { breaks: 0, release: async () => undefined };

/** Opens `path` (a share path; a folder with `folder`) as `condition` says and holds it until release(). */
export async function hold(share: SmbShare, path: string, condition: Condition, folder: boolean): Promise<Holder> {
  if (condition.kind === 'none') return NOTHING_HELD;
  const key = randomBytes(16);
  let breaks = 0;
  let ackFailed: unknown;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const done = share.withTree(async (tree) => {
    const handle = await FileHandle.open(tree, {
      name: path.replaceAll('/', '\\'),
      desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES | Access.SYNCHRONIZE,
      disposition: Disposition.OPEN,
      createOptions: folder ? CreateOptions.DIRECTORY_FILE : CreateOptions.NON_DIRECTORY_FILE,
      shareAccess: condition.kind === 'open' ? condition.share : ShareAccess.ALL,
      ...(condition.kind === 'lease' ? { oplockLevel: OplockLevel.LEASE, lease: { key, state: condition.state } } : {}),
    });
    const stopListening = tree.session.connection.onBreak((notice) => {
      if (notice.kind !== 'lease' || !notice.key.equals(key)) return;
      breaks++;
      // An acknowledgment that fails leaves the server waiting out its break timeout (35 s in Samba): release() says so.
      if (notice.ackRequired) tree.request(leaseBreakAck(key, notice.to)).catch((err: unknown) => (ackFailed = err));
    });
    try {
      if (condition.kind === 'lease' && handle.info.leaseState !== condition.state) {
        throw new Error(`${path}: the server granted lease state ${handle.info.leaseState} for ${conditionName(condition)}`);
      }
      if (condition.kind === 'range lock') {
        await handle.lock([{ ...LOCKED, flags: (condition.exclusive ? LockFlags.EXCLUSIVE : LockFlags.SHARED) | LockFlags.FAIL_IMMEDIATELY }]);
      }
      held();
      await released;
    } finally {
      stopListening();
      await handle.close();
    }
  });
  // An open that fails rejects `done` before `holding` resolves.
  await Promise.race([holding, done]);
  return {
    get breaks() {
      return breaks;
    },
    release: async () => {
      release();
      await done;
      if (ackFailed) throw new Error(`${path}: the holder's lease break acknowledgment failed`, { cause: ackFailed });
    },
  };
}

/**
 * What an operation left, as the file server reports it: for each touched path whether it exists, its owner, DACL
 * and control bits (encoded, to compare byte for byte; read as the DC administrator), its content and its
 * read-only attribute; and a user's effective rights on a file, asked of the server with one open per right.
 */
import { createHash } from 'node:crypto';
import { Access, AceType, encodeSecurityDescriptor, FileAttributes, SmbError, type SecurityDescriptor, type SmbShare } from '../../../../src/smb/index.js';

/**
 * One path's state; `null` when nothing is there. `sd` is compared; `acl` is the same in SDDL-like words for the
 * findings (`O:owner C:control (A|D;flags;mask;trustee)...`); `content` is a digest (bodies go up to a few MiB).
 */
export type PathState = { sd: string; acl: string; content: string | null; readonly: boolean } | null;

/** `name` turns a SID into something a reader knows (an account or group name). */
export async function stateOf(admin: SmbShare, path: string, name: (sid: string) => string): Promise<PathState> {
  let stat;
  try {
    stat = await admin.stat(path);
  } catch (err) {
    if (err instanceof SmbError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
  const sd = await admin.getSecurity(path);
  // Owner, DACL and control bits; the group plays no part in access checks.
  const encoded = encodeSecurityDescriptor({ ...sd, group: null, sacl: null });
  return {
    sd: encoded.toString('hex'),
    acl: readable(sd, name),
    content: stat.isDirectory ? null : digest(await admin.readFile(path)),
    readonly: (stat.attributes & FileAttributes.READONLY) !== 0,
  };
}

/** A file's content, short enough to print: its size and the start of its SHA-256. */
export function digest(content: Buffer): string {
  return `${content.length} bytes, sha256 ${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
}

function readable(sd: SecurityDescriptor, name: (sid: string) => string): string {
  const aces = sd.dacl?.aces.map((a) => `(${a.type === AceType.ACCESS_DENIED ? 'D' : 'A'};0x${a.flags.toString(16)};0x${a.mask.toString(16)};${a.sid && name(a.sid)})`);
  return `O:${sd.owner && name(sd.owner)} C:0x${sd.control.toString(16)} ${aces ? aces.join('') : 'NULL DACL'}`;
}

/** The rights the oracle asks about, each with its own open. */
export const RIGHTS = {
  WRITE_DAC: Access.WRITE_DAC,
  WRITE_OWNER: Access.WRITE_OWNER,
  DELETE: Access.DELETE,
  FILE_WRITE_DATA: Access.FILE_WRITE_DATA,
  FILE_READ_DATA: Access.FILE_READ_DATA,
} as const;

/** The RIGHTS the file server grants `user` on `path`, as a mask. */
export async function rightsOf(user: SmbShare, path: string): Promise<number> {
  let granted = 0;
  await Promise.all(Object.values(RIGHTS).map(async (right) => {
    try {
      await user.checkAccess(path, right);
      granted |= right;
    } catch (err) {
      if (!(err instanceof SmbError && err.code === 'ACCESS_DENIED')) throw err;
    }
  }));
  return granted;
}

export function rightNames(mask: number): string {
  return Object.entries(RIGHTS).filter(([, bit]) => mask & bit).map(([name]) => name).join('|') || 'none';
}

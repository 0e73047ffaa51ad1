/**
 * Reading a DACL the way the file server does (MS-DTYP 2.5.3.2: entries in order, the first one that names a SID of
 * the token and covers a wanted bit decides that bit), to explain the oracle's findings: why the file server
 * grants a page the service hides, and who may write a page. The verdict the test counts is the file server's own
 * (an SMB open as the user); this module only classifies.
 */
import { AceFlags, AceType, type Ace, type SecurityDescriptor } from '../../../../src/windows-security/access-control.js';

export const Right = {
  readData: 0x1,
  /** FILE_WRITE_DATA on a file, FILE_ADD_FILE on a folder. */
  writeData: 0x2,
  delete: 0x10000,
} as const;

const GENERIC_ALL = 0x10000000;
const GENERIC_WRITE = 0x40000000;
const GENERIC_READ = 0x80000000;
/** Every right that changes a file or its metadata (write data/EA/attributes, append, delete, delete child, DAC, owner). */
const CHANGE_RIGHTS = 0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x10000 | 0x40000 | 0x80000 | GENERIC_ALL | GENERIC_WRITE;

/** Generic bits mapped to the file rights they stand for. */
function fileMask(mask: number): number {
  let mapped = mask;
  if (mask & GENERIC_ALL) mapped |= 0x1f01ff;
  if (mask & GENERIC_READ) mapped |= 0x120089;
  if (mask & GENERIC_WRITE) mapped |= 0x120116;
  return mapped;
}

/** Entries that apply to the object itself and name a SID of the token. */
function applying(sd: SecurityDescriptor, token: ReadonlySet<string>): (Ace & { index: number })[] {
  return (sd.dacl?.aces ?? [])
    .map((ace, index) => ({ ...ace, index }))
    .filter((ace) => ace.sid !== null && token.has(ace.sid) && (ace.flags & AceFlags.INHERIT_ONLY) === 0);
}

/** Whether an ordered evaluation grants every bit of `wanted` to the token (a NULL DACL grants everything). */
export function orderedGrant(sd: SecurityDescriptor, token: ReadonlySet<string>, wanted: number): boolean {
  if (sd.dacl === null) return true;
  let granted = 0;
  for (const ace of applying(sd, token)) {
    const bits = fileMask(ace.mask) & wanted & ~granted;
    if (bits === 0) continue;
    if (ace.type === AceType.ACCESS_DENIED) return false;
    if (ace.type === AceType.ACCESS_ALLOWED) granted |= bits;
    if (granted === wanted) return true;
  }
  return false;
}

/** Whether no allow entry gives the token any right to change the object (order aside): a reader only. */
export function grantsNoChange(sd: SecurityDescriptor, token: ReadonlySet<string>): boolean {
  if (sd.dacl === null) return false;
  return applying(sd, token).every((ace) => ace.type !== AceType.ACCESS_ALLOWED || (ace.mask & CHANGE_RIGHTS) === 0);
}

/**
 * Why the service hides a page the file server lets the token read (null: no documented reason). The index keeps
 * one flat allow list and one deny list per page and lets any deny win, so an allow entry that the server reaches
 * before a matching deny entry is not honoured:
 *  - `explicit-allow-before-inherited-deny`: an explicit allow on the page, a deny inherited from a folder
 *    (canonical order: the page's own entries come first, so Windows grants);
 *  - `allow-before-deny-order`: a non-canonical DACL whose allow precedes a deny of the same kind.
 */
export type MissReason = 'explicit-allow-before-inherited-deny' | 'allow-before-deny-order';

export function missReason(sd: SecurityDescriptor, token: ReadonlySet<string>): MissReason | null {
  const aces = applying(sd, token).filter((ace) => fileMask(ace.mask) & Right.readData);
  const firstAllow = aces.find((ace) => ace.type === AceType.ACCESS_ALLOWED);
  const laterDeny = aces.find((ace) => ace.type === AceType.ACCESS_DENIED && firstAllow !== undefined && ace.index > firstAllow.index);
  if (firstAllow === undefined || laterDeny === undefined) return null;
  const inherited = (ace: Ace) => (ace.flags & AceFlags.INHERITED) !== 0;
  return !inherited(firstAllow) && inherited(laterDeny) ? 'explicit-allow-before-inherited-deny' : 'allow-before-deny-order';
}

/**
 * A second opinion on the file server's verdicts: the matrix takes each verdict from the project's own SMB client,
 * so a bug in that client (a read that fails for the wrong reason, a logon as the wrong account) would skew every
 * verdict alike. Samba's own smbclient opens a seeded sample of (user, page) pairs again, and must agree.
 */
import { smbclientStatus } from '../../smb/testbed.js';
import { pick, type OracleUser } from './directory.js';
import type { OraclePage } from './fixture.js';


export interface Verdict {
  user: OracleUser;
  page: OraclePage;
  granted: boolean;
}

/** `perSide` pairs the project's client found readable and `perSide` it found refused, drawn with `next`. */
export function drawSample(
  users: readonly OracleUser[],
  pages: readonly OraclePage[],
  granted: ReadonlyMap<string, ReadonlySet<string>>,
  next: () => number,
  perSide: number,
): Verdict[] {
  const verdicts = users.flatMap((user) => pages.map((page) => ({ user, page, granted: granted.get(user.name)!.has(page.path) })));
  return [...pick(next, verdicts.filter((v) => v.granted), perSide), ...pick(next, verdicts.filter((v) => !v.granted), perSide)];
}

/**
 * Whether smbclient, logged on as `user`, can read `page`. Only ACCESS_DENIED counts as refused: any other failure
 * (a failed logon, a missing file) throws.
 */
export async function smbclientGrants(share: string, user: OracleUser, page: string): Promise<boolean> {
  const status = await smbclientStatus({ user: user.name, password: user.password }, share, `get "${page.replaceAll('/', '\\')}" /dev/null`);
  if (status === 'STATUS_ACCESS_DENIED') return false;
  if (status === 'SUCCESS') return true;
  throw new Error(`smbclient as ${user.name}, get ${page}: ${status}`);
}

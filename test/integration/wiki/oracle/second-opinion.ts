/**
 * A second opinion on the file server's verdicts: the matrix takes each verdict from the project's own SMB client,
 * so a bug in that client (a read that fails for the wrong reason, a logon as the wrong account) would skew every
 * verdict alike. Samba's own smbclient opens a seeded sample of (user, page) pairs again, and must agree.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestbedEnv } from '../../../testbed/env.js';
import { pick, type OracleUser } from './directory.js';
import type { OraclePage } from './fixture.js';

const run = promisify(execFile);

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
 * Whether smbclient, logged on as `user` with signing, can read `page`. The credentials go in an authentication file
 * (mode 600, in a folder of its own, removed afterwards), so no password shows on a command line. Only
 * ACCESS_DENIED counts as refused: any other failure (a failed logon, a missing file) throws.
 */
export async function smbclientGrants(env: TestbedEnv, share: string, user: OracleUser, page: string): Promise<boolean> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oracle-smbclient-'));
  try {
    const auth = path.join(dir, 'auth');
    await writeFile(auth, `username = ${user.name}\npassword = ${user.password}\ndomain = ${env.smb.domain}\n`, { mode: 0o600 });
    const args = [`//${env.smb.host}/${share}`, '-p', String(env.smb.port), '-A', auth, '--client-protection=sign', '-c', `get "${page.replaceAll('/', '\\')}" /dev/null`];
    const { ok, output } = await run('smbclient', args).then(
      ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
      (error: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message }),
    );
    if (output.includes('NT_STATUS_ACCESS_DENIED')) return false;
    if (ok && !output.includes('NT_STATUS_')) return true;
    throw new Error(`smbclient as ${user.name}, get ${page}: ${output.trim()}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

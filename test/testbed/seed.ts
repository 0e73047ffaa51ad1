// Fills the shares with wiki pages and files through SMB as the DC Administrator, setting each folder's NT ACL
// before anything is created inside it, so every file and folder carries the ACL it inherits.
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DirectorySids } from './accounts.js';
import { dcAdmin, wellKnownSids } from './domain.js';
import { exists, readStateFile } from './files.js';
import { layout } from './layout.js';
import type { NtlmMode } from './ntlm-mode.js';
import { run } from './processes.js';
import { sambaClientLogon, sambaUserOption } from './samba-clients.js';
import { sharePath, testbedShares } from './shares.js';
import { alwaysGranted, shareContents, type Grant, type ShareContent } from './wiki-content.js';

const contentHash = createHash('sha256').update(JSON.stringify(shareContents)).digest('hex');

interface SeedStamp {
  /** The SIDs the ACLs were written with; a recreated account or domain means re-seeding. */
  sids: DirectorySids;
  contentHash: string;
}

/** smbclient or smbcacls on `share` as the DC Administrator, in the testbed's NTLM mode. */
function asAdmin(tool: 'smbclient' | 'smbcacls', ntlm: NtlmMode, share: string, args: readonly string[]) {
  const logon = sambaClientLogon(ntlm, share);
  return run(tool, [logon.service, ...args, '-s', layout.samba.conf, ...logon.options, ...sambaUserOption(dcAdmin), protection(share)], { env: logon.env });
}

function protection(share: string): string {
  const encrypt = testbedShares.find((spec) => spec.name === share)?.encrypt ?? false;
  return `--client-protection=${encrypt ? 'encrypt' : 'sign'}`;
}

function smbPath(relative: string): string {
  return relative.split('/').join('\\');
}

/** Runs smbclient commands in one session; smbclient may exit 0 after a failed command, so its output is checked. */
async function smbclient(ntlm: NtlmMode, share: string, commands: readonly string[]): Promise<void> {
  const { stdout, stderr } = await asAdmin('smbclient', ntlm, share, ['-c', commands.join('; ')]);
  const failure = /NT_STATUS_\w+/.exec(stdout + stderr);
  if (failure) throw new Error(`smbclient on ${share} failed with ${failure[0]}:\n${stdout}${stderr}`);
}

function sidOf(principal: Grant['principal'], sids: DirectorySids): string {
  const sid = sids.groups[principal] ?? sids.users[principal];
  if (!sid) throw new Error(`no SID known for ACL principal ${principal}`);
  return sid;
}

function aclString(grants: readonly Grant[], sids: DirectorySids): string {
  const aces = [
    `ACL:${wellKnownSids.administrators}:ALLOWED/OI|CI/FULL`,
    `ACL:${wellKnownSids.system}:ALLOWED/OI|CI/FULL`,
    ...[...alwaysGranted, ...grants].map(
      (grant) => `ACL:${sidOf(grant.principal, sids)}:${grant.deny ? 'DENIED' : 'ALLOWED'}/OI|CI/${grant.access}`,
    ),
  ];
  return [`OWNER:${wellKnownSids.administrators}`, `GROUP:${sids.groups['Domain Users']}`, ...aces].join(',');
}

async function setAcl(ntlm: NtlmMode, share: string, folder: string, grants: readonly Grant[], sids: DirectorySids): Promise<void> {
  // smbcacls sorts the ACEs canonically (deny first) and resolves nothing: all principals are given as SIDs.
  await asAdmin('smbcacls', ntlm, share, [smbPath(folder), '--set', aclString(grants, sids)]);
}

async function seedShare(content: ShareContent, sids: DirectorySids, ntlm: NtlmMode, staging: string): Promise<void> {
  const root = sharePath(content.share);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await chmod(root, 0o777);
  const pending: string[] = [];
  const flush = async (): Promise<void> => {
    if (pending.length > 0) await smbclient(ntlm, content.share, pending.splice(0));
  };
  for (const folder of content.folders) {
    if (folder.path !== '') pending.push(`mkdir "${smbPath(folder.path)}"`);
    if (folder.acl) {
      await flush();
      await setAcl(ntlm, content.share, folder.path, folder.acl, sids);
    }
  }
  for (const [index, [file, text]] of Object.entries(content.files).entries()) {
    const local = path.join(staging, `${content.share}-${index}`);
    await writeFile(local, text);
    pending.push(`put "${local}" "${smbPath(file)}"`);
  }
  await flush();
}

async function sharesPresent(): Promise<boolean> {
  const present = await Promise.all(shareContents.map((content) => exists(path.join(sharePath(content.share), '.wiki'))));
  return present.every(Boolean);
}

/**
 * Seeds the shares unless the stamp says this content was already seeded with these SIDs. Re-seeding (new
 * SIDs, changed content, or an earlier run that died half-way) starts from empty share dirs. Samba's clients log on
 * in the testbed's NTLM mode.
 */
export async function ensureSeeded(sids: DirectorySids, ntlm: NtlmMode): Promise<boolean> {
  const stamp = await readStateFile<SeedStamp>(layout.samba.seedStamp);
  const sameSids = JSON.stringify(stamp?.sids) === JSON.stringify(sids);
  if (sameSids && stamp?.contentHash === contentHash && (await sharesPresent())) {
    return false;
  }
  await rm(layout.samba.seedStamp, { force: true });
  const staging = await mkdtemp(path.join(os.tmpdir(), 'testbed-seed-'));
  try {
    for (const content of shareContents) await seedShare(content, sids, ntlm, staging);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const done: SeedStamp = { sids, contentHash };
  await writeFile(layout.samba.seedStamp, `${JSON.stringify(done)}\n`);
  return true;
}

// Creates the testbed's users and groups on the DC (idempotently) and collects their SIDs.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { accounts, domainUsersRid, groupNames } from './domain.js';
import { readStateFile } from './files.js';
import { layout } from './layout.js';
import { sambaTool } from './samba.js';

export interface DirectorySids {
  domainSid: string;
  users: Record<string, string>;
  /** Created groups plus `Domain Users`. */
  groups: Record<string, string>;
}

interface AccountsRecord {
  specHash: string;
  sids: DirectorySids;
}

const specHash = createHash('sha256').update(JSON.stringify({ accounts, groupNames })).digest('hex');

function listed(output: string): Set<string> {
  return new Set(output.split('\n').map((line) => line.trim()).filter(Boolean));
}

async function objectSid(kind: 'user' | 'group', name: string): Promise<string> {
  const { stdout } = await sambaTool([kind, 'show', name, '--attributes=objectSid']);
  const sid = /^objectSid: (S-1-[\d-]+)$/m.exec(stdout)?.[1];
  if (!sid) throw new Error(`samba-tool ${kind} show ${name} printed no objectSid:\n${stdout}`);
  return sid;
}

// Each samba-tool run is mostly Python start-up, so independent runs go side by side (sam.ldb serialises writes).
async function createMissing(): Promise<void> {
  const [, existingGroups, existingUsers] = await Promise.all([
    // Test accounts must not expire while a testbed lives on for weeks.
    sambaTool(['domain', 'passwordsettings', 'set', '--max-pwd-age=0']),
    sambaTool(['group', 'list']).then(({ stdout }) => listed(stdout)),
    sambaTool(['user', 'list']).then(({ stdout }) => listed(stdout)),
  ]);
  await Promise.all([
    ...groupNames.filter((group) => !existingGroups.has(group)).map((group) => sambaTool(['group', 'add', group])),
    ...Object.entries(accounts).map(([user, spec]) =>
      existingUsers.has(user)
        ? sambaTool(['user', 'setpassword', user, `--newpassword=${spec.password}`])
        : sambaTool(['user', 'create', user, spec.password]),
    ),
  ]);
  await Promise.all(
    groupNames.map(async (group) => {
      const members = listed((await sambaTool(['group', 'listmembers', group])).stdout);
      const missing = Object.keys(accounts).filter(
        (user) => accounts[user]?.groups.includes(group) && !members.has(user),
      );
      if (missing.length > 0) await sambaTool(['group', 'addmembers', group, missing.join(',')]);
    }),
  );
}

async function collectSids(): Promise<DirectorySids> {
  const users = Object.fromEntries(
    await Promise.all(Object.keys(accounts).map(async (user) => [user, await objectSid('user', user)] as const)),
  );
  const groups: Record<string, string> = Object.fromEntries(
    await Promise.all(groupNames.map(async (group) => [group, await objectSid('group', group)] as const)),
  );
  const domainSid = (users[Object.keys(accounts)[0] ?? ''] ?? '').replace(/-\d+$/, '');
  if (!domainSid) throw new Error('cannot derive the domain SID from the created accounts');
  groups['Domain Users'] = `${domainSid}-${domainUsersRid}`;
  return { domainSid, users, groups };
}

/**
 * Ensures every account and group of `domain.ts` exists with its memberships. The record of SIDs lives
 * inside the Samba dir, so a reprovisioned domain (new SIDs) is populated again automatically.
 */
export async function ensureAccounts(): Promise<{ sids: DirectorySids; changed: boolean }> {
  const record = await readStateFile<AccountsRecord>(layout.samba.accountsFile);
  if (record?.specHash === specHash) return { sids: record.sids, changed: false };
  await createMissing();
  const sids = await collectSids();
  await writeFile(layout.samba.accountsFile, `${JSON.stringify({ specHash, sids }, null, 2)}\n`);
  return { sids, changed: true };
}

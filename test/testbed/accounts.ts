// Creates the testbed's users and groups on the DC (idempotently) over LDAPS as the DC Administrator and
// collects their SIDs. One LDAP session instead of dozens of samba-tool runs (each mostly Python start-up).
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Attribute, Change, Client, EqualityFilter, OrFilter, type Entry } from 'ldapts';
import { decodeSid } from '../../src/windows-security/sid.js';
import { accounts, baseDn, dcAdmin, domainUsersRid, groupNames, ldapsUrl, realm } from './domain.js';
import { readStateFile } from './files.js';
import { layout } from './layout.js';
import type { LdapTls } from './samba.js';

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
const usersContainer = `CN=Users,${baseDn}`;
// "Never expires" in AD's encoding; test accounts must not expire while a testbed lives on for weeks.
const neverExpires = '-9223372036854775808';
// A normal, enabled account (ADS_UF_NORMAL_ACCOUNT).
const normalAccount = '512';

/** The DN of a new user or group of this name in `CN=Users`. */
export function newDn(name: string): string {
  return `CN=${name.replace(/[,+"\\<>;=#]/g, '\\$&')},${usersContainer}`;
}

/** AD takes a password as the UTF-16LE encoding of the password in double quotes, and only over TLS. */
export function unicodePwd(password: string): Buffer {
  return Buffer.from(`"${password}"`, 'utf16le');
}

/** The attributes of a new, enabled user account with this password. */
export function userAttributes(user: string, password: string): Attribute[] {
  const attributes: [string, string[] | Buffer[]][] = [
    ['objectClass', ['user']],
    ['sAMAccountName', [user]],
    ['userPrincipalName', [`${user}@${realm.toLowerCase()}`]],
    ['unicodePwd', [unicodePwd(password)]],
    ['userAccountControl', [normalAccount]],
  ];
  return attributes.map(([type, vals]) => new Attribute({ type, values: vals }));
}

function values(entry: Entry, attribute: string): string[] {
  const value = entry[attribute];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

/** The entries of these accounts, by account name, with `attributes` (the account name among them). */
export async function findByAccountName(
  client: Client,
  names: readonly string[],
  attributes: readonly string[] = ['objectSid', 'memberOf'],
): Promise<Map<string, Entry>> {
  const { searchEntries } = await client.search(baseDn, {
    filter: new OrFilter({ filters: names.map((value) => new EqualityFilter({ attribute: 'sAMAccountName', value })) }),
    attributes: ['sAMAccountName', ...attributes],
    explicitBufferAttributes: ['objectSid'],
  });
  return new Map(searchEntries.map((entry) => [String(entry.sAMAccountName), entry]));
}

async function createMissing(client: Client): Promise<void> {
  await client.modify(baseDn, new Change({
    operation: 'replace',
    modification: new Attribute({ type: 'maxPwdAge', values: [neverExpires] }),
  }));
  const users = Object.keys(accounts);
  const existing = await findByAccountName(client, [...groupNames, ...users]);
  for (const group of groupNames.filter((name) => !existing.has(name))) {
    await client.add(newDn(group), { objectClass: 'group', sAMAccountName: group });
  }
  for (const user of users.filter((name) => !existing.has(name))) {
    await client.add(newDn(user), userAttributes(user, accounts[user]?.password ?? ''));
  }
}

async function addMemberships(client: Client, entries: Map<string, Entry>): Promise<void> {
  for (const group of groupNames) {
    const groupDn = entries.get(group)?.dn ?? '';
    const missing = Object.entries(accounts)
      .filter(([, spec]) => spec.groups.includes(group))
      .map(([user]) => entries.get(user))
      .filter((entry): entry is Entry => entry !== undefined)
      .filter((entry) => !values(entry, 'memberOf').some((dn) => dn.toLowerCase() === groupDn.toLowerCase()))
      .map((entry) => entry.dn);
    if (missing.length === 0) continue;
    await client.modify(groupDn, new Change({
      operation: 'add',
      modification: new Attribute({ type: 'member', values: missing }),
    }));
  }
}

export function sidOf(entries: Map<string, Entry>, name: string): string {
  const sid = entries.get(name)?.objectSid;
  if (!Buffer.isBuffer(sid)) throw new Error(`the directory returned no objectSid for ${name}`);
  return decodeSid(sid);
}

/** An LDAPS session bound as the DC Administrator; the caller unbinds. */
export async function dcAdminClient(tls: LdapTls): Promise<Client> {
  const client = new Client({
    url: ldapsUrl,
    timeout: 30_000,
    connectTimeout: 10_000,
    tlsOptions: { ca: [await readFile(tls.caFile)], servername: tls.serverName },
  });
  await client.bind(`${dcAdmin.user}@${realm}`, dcAdmin.password);
  return client;
}

async function populate(tls: LdapTls): Promise<DirectorySids> {
  const client = await dcAdminClient(tls);
  try {
    await createMissing(client);
    const users = Object.keys(accounts);
    const entries = await findByAccountName(client, [...groupNames, ...users]);
    await addMemberships(client, entries);
    const userSids = Object.fromEntries(users.map((user) => [user, sidOf(entries, user)]));
    const groupSids = Object.fromEntries(groupNames.map((group) => [group, sidOf(entries, group)]));
    const domainSid = sidOf(entries, groupNames[0]).replace(/-\d+$/, '');
    return { domainSid, users: userSids, groups: { ...groupSids, 'Domain Users': `${domainSid}-${domainUsersRid}` } };
  } finally {
    await client.unbind();
  }
}

/**
 * Ensures every account and group of `domain.ts` exists with its memberships. The record of SIDs lives
 * inside the Samba dir, so a reprovisioned domain (new SIDs) is populated again automatically.
 */
export async function ensureAccounts(tls: LdapTls): Promise<{ sids: DirectorySids; changed: boolean }> {
  const record = await readStateFile<AccountsRecord>(layout.samba.accountsFile);
  if (record?.specHash === specHash) return { sids: record.sids, changed: false };
  const sids = await populate(tls);
  await writeFile(layout.samba.accountsFile, `${JSON.stringify({ specHash, sids }, null, 2)}\n`);
  return { sids, changed: true };
}

// One account, many domain spellings (issue 41, items 1 and 2): a few scratch accounts, each logging on with its
// right password under every spelling of its name the service accepts (NETBIOS\user and realm\user in any case, the
// bare name, user@realm, an explicit UPN), take and release shared WebDAV locks, set and remove dead properties
// and read, at random; spellings whose domain is neither the NetBIOS name nor the realm (FOO\user, x.example\user)
// must be refused with 401, whatever they ask. The bounds per user must be bounds per account. Everything is
// tallied by the account the generator spelt, not by the service's reading of the name, so that a service that
// keys a bound by the spelling fails here:
//  - locks: an account never holds more than webdav.locks.max_per_user; its next LOCK, however spelt, is
//    403 too_many_locks; its locks are its own to UNLOCK under any spelling;
//  - dead properties: what an account's properties hold never passes dead_properties.max_user_size (403
//    user_properties_too_large beyond);
//  - SMB: smbd never holds more sessions of one account than smb.max_connections_per_account (smbstatus, sampled
//    through both campaigns, every 500 ms); while every connection the account (or the service) may have is busy,
//    a 503 with Retry-After is a right answer.
// The tallies are lower bounds of what the service holds (a lock counts from its 200 until its UNLOCK is sent, a
// property's value from its 207 until its removal is sent; the service counts more than the value's bytes), so a
// count past the bound is the service's, whatever the order in which concurrent requests reached it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DavClient } from '../integration/webdav/dav-client.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { ScratchAccounts, type ScratchAccount } from '../integration/wiki/scratch-accounts.js';
import { sampleSmbdSessions, type SessionSampler } from '../support/smbd-sessions.js';
import type { RunningService } from '../support/service.js';
import { abuseSuite } from './support/campaign.js';
import type { Dice } from './support/hostile-input.js';
import type { RawAnswer, RawRequest } from './support/raw-http.js';

const MAX_LOCKS = 4;
const MAX_PROPERTY_BYTES = 16 * 1024;
const MAX_CONNECTIONS_PER_ACCOUNT = 2;
/** Files only ever locked (shared locks, which never conflict), and files only given properties (a lock would stop that). */
const LOCKED = ['l0.txt', 'l1.txt', 'l2.txt', 'l3.txt'];
const PROPERTIED = ['p0.txt', 'p1.txt', 'p2.txt'];
const NS = 'urn:account-spellings';
/** Sizes of one property's value: a few of the larger ones reach an account's budget. */
const VALUE_SIZES = [200, 1_000, 3_000];

const scratchOf = (seed: number) => `_abuse-spellings-${seed}`;
const tag = randomBytes(3).toString('hex');
/** Three accounts in Lehrer (who may change the share); the first also has an explicit UPN, its user part another. */
const NAMES = [0, 1, 2].map((k) => `acsp${tag}${k}`);
const UPN = `other-${NAMES[0]}@schule.example`;

/** What the generator knows of one account: lower bounds of what the service holds for it. */
interface Tally {
  account: ScratchAccount;
  /** Locks answered 200 whose UNLOCK has not been sent: token → the file and the Authorization that took it. */
  held: Map<string, { file: string; authorization: string }>;
  unlocksInFlight: number;
  unlocksSent: number;
  /** Properties answered 207 whose removal has not been sent: name → the file and its value's bytes. */
  properties: Map<string, { file: string; bytes: number }>;
}

/** What a request was meant to do, for its check. */
type Intent =
  | { kind: 'foreign'; spelt: string }
  | { kind: 'lock'; tally: Tally; spelt: string; authorization: string; file: string; mustRefuse: boolean; unlocksSentBefore: number }
  | { kind: 'unlock'; tally: Tally; spelt: string; token: string; lock: { file: string; authorization: string } }
  | { kind: 'set'; tally: Tally; spelt: string; name: string; file: string; bytes: number }
  | { kind: 'remove'; tally: Tally; spelt: string; name: string; property: { file: string; bytes: number } }
  | { kind: 'read'; spelt: string; expected: number };

const intents = new WeakMap<RawRequest, Intent>();
/** 503s (with Retry-After, or answerProblem would have refused them) by their error code, for the log. */
const shedByCode = new Map<string, number>();
let tallies: Tally[] = [];
let accounts: ScratchAccounts | undefined;
let sampler: SessionSampler | undefined;
let running: RunningService | undefined;

/** The spellings of `name` that name its account: the user part in any case after each form of the domain. */
function spellings(d: Dice, name: string, domain: string, realm: string, upn?: string): string[] {
  const user = d.pick([name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)]);
  return [
    `${domain}\\${user}`, `${domain.toLowerCase()}\\${user}`, `${realm.toLowerCase()}\\${user}`, `${realm}\\${user}`,
    user, `${user}@${realm.toLowerCase()}`, `${user}@${realm}`, ...(upn ? [upn, upn.toUpperCase()] : []),
  ];
}

/** Domains that are neither the NetBIOS name nor the realm, some a letter away. */
function foreignSpelling(d: Dice, name: string, domain: string, realm: string): string {
  return `${d.pick(['FOO', 'x.example', `${domain}X`, `${realm}.example`, realm.slice(0, -1), 'WORKGROUP'])}\\${d.pick([name, name.toUpperCase()])}`;
}

const propertyupdate = (instruction: 'set' | 'remove', name: string, value = '') =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:x="${NS}"><D:${instruction}><D:prop>`
  + `${instruction === 'set' ? `<x:${name}>${value}</x:${name}>` : `<x:${name}/>`}</D:prop></D:${instruction}></D:propertyupdate>`;

const lockinfo = `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope>`
  + '<D:locktype><D:write/></D:locktype><D:owner>spellings</D:owner></D:lockinfo>';

/** The `error` of a JSON error answer. */
function errorCode(answer: RawAnswer): string | undefined {
  try {
    return (JSON.parse(answer.body.toString('utf8')) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

/** What is wrong with the answer to an account's request, given what it was meant to do; keeps the tally. */
function checkIntent(intent: Exclude<Intent, { kind: 'foreign' }>, answer: RawAnswer): string | undefined {
  const as = `as ${JSON.stringify(intent.spelt)}`;
  // The service shed the request (the account's or its total of SMB connections busy): nothing changed, and
  // answerProblem checked the Retry-After. Any other 503 is a request that lost its session to another spelling's.
  const shed = answer.status === 503;
  if (shed && errorCode(answer) !== 'too_many_sessions') return `${intent.kind.toUpperCase()} ${as}: 503 ${errorCode(answer)} (only too_many_sessions may shed)`;
  switch (intent.kind) {
    case 'lock': {
      const { tally } = intent;
      if (answer.status === 403 && errorCode(answer) === 'too_many_locks') return undefined;
      if (shed) return undefined;
      if (answer.status !== 200) return `LOCK ${as}: status ${answer.status} (200 or 403 too_many_locks expected)`;
      const token = /^<([^>]+)>$/.exec(answer.headers['lock-token'] ?? '')?.[1];
      if (token === undefined) return `LOCK ${as}: 200 without a Lock-Token`;
      tally.held.set(token, { file: intent.file, authorization: intent.authorization });
      if (intent.mustRefuse && tally.unlocksSent === intent.unlocksSentBefore) {
        return `LOCK ${as} granted while account ${tally.account.name} held ${MAX_LOCKS} locks under other spellings (403 too_many_locks expected)`;
      }
      return tally.held.size > MAX_LOCKS ? `account ${tally.account.name} holds ${tally.held.size} locks (at most ${MAX_LOCKS}, however spelt), the last taken ${as}` : undefined;
    }
    case 'unlock': {
      intent.tally.unlocksInFlight--;
      if (answer.status === 204) return undefined;
      intent.tally.held.set(intent.token, intent.lock);
      return shed ? undefined : `UNLOCK ${as} of a lock account ${intent.tally.account.name} took: status ${answer.status} (204 expected: its locks are its own under any spelling)`;
    }
    case 'set': {
      const { tally } = intent;
      if (answer.status === 403 && errorCode(answer) === 'user_properties_too_large') return undefined;
      if (shed) return undefined;
      if (answer.status !== 207) return `PROPPATCH ${as}: status ${answer.status} (207 or 403 user_properties_too_large expected)`;
      tally.properties.set(intent.name, { file: intent.file, bytes: intent.bytes });
      const bytes = [...tally.properties.values()].reduce((sum, p) => sum + p.bytes, 0);
      return bytes > MAX_PROPERTY_BYTES
        ? `account ${tally.account.name} holds dead properties of ${bytes} bytes of value alone (at most ${MAX_PROPERTY_BYTES}, however spelt), the last set ${as}`
        : undefined;
    }
    case 'remove': {
      if (answer.status === 207) return undefined;
      intent.tally.properties.set(intent.name, intent.property);
      return shed ? undefined : `PROPPATCH (remove) ${as}: status ${answer.status} (207 expected)`;
    }
    case 'read':
      return answer.status === intent.expected || shed ? undefined : `${as}: status ${answer.status} (${intent.expected} expected)`;
  }
}

abuseSuite({
  name: 'one account, many domain spellings',
  sheds: true,
  config: {
    smb: { max_connections_per_account: MAX_CONNECTIONS_PER_ACCOUNT },
    webdav: {
      locks: { max_per_user: MAX_LOCKS },
      // Only the budget per user may bite: no resource comes near these.
      dead_properties: { max_user_size: MAX_PROPERTY_BYTES, max_per_resource: 10_000, max_resource_size: '4MiB' },
    },
    // Right passwords throughout; the refused domains must not lock the accounts out for the rest of the campaign.
    auth: { max_failures: 0, max_address_failures: 0 },
  },
  addressed: (path, seed) => path === `schule/${scratchOf(seed)}` || path.startsWith(`schule/${scratchOf(seed)}/`),
  async prepare(service, env, seed) {
    running = service;
    accounts = new ScratchAccounts(env);
    const created = [await accounts.createUser(NAMES[0]!, ['Lehrer'], { userPrincipalName: UPN })];
    for (const name of NAMES.slice(1)) created.push(await accounts.createUser(name, ['Lehrer']));
    tallies = created.map((account) => ({ account, held: new Map(), unlocksInFlight: 0, unlocksSent: 0, properties: new Map() }));
    const box = `${scratchOf(seed)}/box`;
    const dav = new DavClient(service, { user: NAMES[1]!, password: created[1]!.password });
    for (const folder of [scratchOf(seed), box]) assert.equal(await dav.mkcol(folder), 201);
    for (const file of [...LOCKED, ...PROPERTIED]) assert.equal((await dav.put(`${box}/${file}`, 'spelt')).status, 201);
    sampler = sampleSmbdSessions(env, created.map((a) => a.sid));
    const { domain, realm } = env.smb;
    const scratch = `/dav/schule/${box}`;
    return (d: Dice, i: number): RawRequest => {
      const tally = d.pick(tallies);
      const { name, password } = tally.account;
      const foreign = d.chance(0.1);
      const spelt = foreign ? foreignSpelling(d, name, domain, realm) : d.pick(spellings(d, name, domain, realm, name === NAMES[0] ? UPN : undefined));
      const authorization = basicAuth(spelt, password);
      const request = (intent: Intent, method: string, file: string, headers: Array<[string, string]> = [], body = ''): RawRequest => {
        const req = { method, target: file === '' ? `${scratch}/` : `${scratch}/${file}`, headers: [['authorization', authorization] as [string, string], ...headers], body };
        intents.set(req, foreign ? { kind: 'foreign', spelt } : intent);
        return req;
      };
      const read = (): RawRequest => (d.chance(0.5)
        ? request({ kind: 'read', spelt, expected: 207 }, 'PROPFIND', '', [['depth', '1']])
        : request({ kind: 'read', spelt, expected: 200 }, 'GET', d.pick([...LOCKED, ...PROPERTIED])));
      return d.oneOf<RawRequest>([
        () => {
          const file = d.pick(LOCKED);
          const intent: Intent = {
            kind: 'lock', tally, spelt, authorization, file,
            mustRefuse: tally.held.size >= MAX_LOCKS && tally.unlocksInFlight === 0, unlocksSentBefore: tally.unlocksSent,
          };
          return request(intent, 'LOCK', file, [['depth', '0'], ['timeout', 'Infinite']], lockinfo);
        },
        () => {
          if (foreign || tally.held.size === 0) return read();
          const [token, lock] = d.pick([...tally.held]);
          tally.held.delete(token);
          tally.unlocksInFlight++;
          tally.unlocksSent++;
          return request({ kind: 'unlock', tally, spelt, token, lock }, 'UNLOCK', lock.file, [['lock-token', `<${token}>`]]);
        },
        () => {
          const [property, file, bytes] = [`r${i}`, d.pick(PROPERTIED), d.pick(VALUE_SIZES)];
          return request({ kind: 'set', tally, spelt, name: property, file, bytes }, 'PROPPATCH', file, [], propertyupdate('set', property, 'v'.repeat(bytes)));
        },
        () => {
          if (foreign || tally.properties.size === 0) return read();
          const [property, stored] = d.pick([...tally.properties]);
          tally.properties.delete(property);
          return request({ kind: 'remove', tally, spelt, name: property, property: stored }, 'PROPPATCH', stored.file, [], propertyupdate('remove', property));
        },
        read,
      ]);
    };
  },
  check(req, answer) {
    const intent = intents.get(req)!;
    if (answer.status === 503) shedByCode.set(errorCode(answer) ?? '', (shedByCode.get(errorCode(answer) ?? '') ?? 0) + 1);
    if (intent.kind === 'foreign') return answer.status === 401 ? undefined : `${req.method} as ${JSON.stringify(intent.spelt)}: status ${answer.status} (401 expected: not the domain's name)`;
    return checkIntent(intent, answer);
  },
  afterwards: {
    name: `smbd never held more than ${MAX_CONNECTIONS_PER_ACCOUNT} sessions of one account, however spelt`,
    async run() {
      const most = await sampler!.stop();
      const seen = tallies.map(({ account }) => `${account.name}: ${most.get(account.sid)}`).join(', ');
      console.log(`abuse: one account, many domain spellings: most sessions of each account at once in smbd: ${seen}; `
        + `503s with Retry-After by code: ${JSON.stringify(Object.fromEntries(shedByCode))}`);
      for (const { account } of tallies) {
        const sessions = most.get(account.sid)!;
        // Every account did work over SMB: none seen means the sampling did not find the account's sessions.
        assert.ok(sessions >= 1, `no smbd session of ${account.name} was ever seen`);
        assert.ok(sessions <= MAX_CONNECTIONS_PER_ACCOUNT, `smbd held ${sessions} sessions of ${account.name} at once (${seen})`);
      }
    },
  },
  async cleanup(env, seed) {
    await sampler?.stop().catch(() => undefined);
    // Each lock released under the spelling that took it; the folder's removal drops the properties with the files.
    for (const { held } of tallies) {
      for (const [token, { file, authorization }] of held) {
        await fetch(`${running!.url}/dav/schule/${scratchOf(seed)}/box/${file}`, { method: 'UNLOCK', headers: { authorization, 'lock-token': `<${token}>` } });
      }
    }
    const owner = tallies[1]?.account;
    if (owner) await new DavClient(running!, { user: owner.name, password: owner.password }).remove(scratchOf(seed));
    await rm(join(env.smb.shares.find((s) => s.name === 'schule')!.path, scratchOf(seed)), { recursive: true, force: true });
    await accounts?.removeAll();
  },
});

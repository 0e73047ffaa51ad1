// One account, whichever way its name is written (issue 41): WebDAV keys locks, dead-property budgets and pooled
// SMB sessions by the account's SID, refuses a domain that is not this one before the DC is asked, bounds one
// account's SMB sessions as smbd counts them, and ends a warm session once the account can no longer log on
// (deleted, disabled, locked out, expired, or given a new password) within smb.session_max_age + 5 s. Each case
// with a scratch account of its own on the testbed DC.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { smbdSessionsOf } from '../../support/smbd-sessions.js';
import { parsePrometheusText, sampleValue } from '../../unit/metrics/prometheus-text.js';
import { ScratchAccounts, type ScratchAccount } from '../wiki/scratch-accounts.js';
import { DavClient, account, type Account } from './dav-client.js';

const SESSION_MAX_AGE_S = 3;
const MAX_LOCKS = 3;
const MAX_CONNECTIONS_PER_ACCOUNT = 1;

const lockBody = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
const setBody = (value: string) =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:s="urn:schule"><D:set><D:prop><s:big>${value}</s:big></D:prop></D:set></D:propertyupdate>`;

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

describe('WebDAV: one account, whichever spelling; sessions that end with the account', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let scratch: ScratchAccounts;
  let anna: DavClient;
  const dir = `_accounts-${randomBytes(4).toString('hex')}`;
  const prefix = `acc${randomBytes(3).toString('hex')}`;
  let serial = 0;

  before(async () => {
    env = await readTestbedEnv();
    scratch = new ScratchAccounts(env);
    service = await startService({
      workers: { http_front: 1 },
      smb: { session_max_age: `${SESSION_MAX_AGE_S}s`, max_connections_per_account: MAX_CONNECTIONS_PER_ACCOUNT },
      webdav: {
        locks: { max_per_user: MAX_LOCKS },
        dead_properties: { max_per_resource: 5, max_resource_size: '2KiB', max_user_size: '8KiB', max_total_size: '64KiB' },
      },
    });
    anna = new DavClient(service, account(env, 'anna'));
    assert.equal(await anna.mkcol(dir), 201);
    for (const name of ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md']) assert.equal((await anna.put(`${dir}/${name}`, 'x')).status, 201);
  });
  after(async () => {
    await anna.remove(dir);
    await service.stop();
    await scratch.removeAll();
  });

  /** A new teacher (Lehrer may write in the share root), and a client for each spelling of the name. */
  async function teacher(): Promise<{ user: ScratchAccount; as: (name: string, password?: string) => DavClient }> {
    const user = await scratch.createUser(`${prefix}${serial++}`, ['Lehrer']);
    const as = (name: string, password = user.password): DavClient => new DavClient(service, { user: name, password } satisfies Account);
    return { user, as };
  }

  const spellings = (name: string) => [`EDU\\${name}`, `edu.test\\${name}`, `${name}@edu.test`, name, `${name.toUpperCase()}@EDU.TEST`];

  const pooledSessions = async () => sampleValue(parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text()), 'fileproxy_smb_sessions', { pool: 'webdav' });

  it('counts the locks of every spelling of one account together; the account owns them under any spelling', async () => {
    const { user, as } = await teacher();
    const tokens: string[] = [];
    for (let i = 0; i < MAX_LOCKS; i++) {
      const res = await as(`EDU\\${user.name}`).request('LOCK', `${dir}/a.md`, { headers: { depth: '0' }, body: lockBody });
      assert.equal(res.status, 200);
      tokens.push(res.headers.get('lock-token')!);
    }
    for (const name of spellings(user.name)) {
      const res = await as(name).request('LOCK', `${dir}/b.md`, { headers: { depth: '0' }, body: lockBody });
      assert.equal(res.status, 403, name);
      assert.equal(await errorOf(res), 'too_many_locks', name);
    }
    assert.equal((await as(`${user.name}@edu.test`).request('UNLOCK', `${dir}/a.md`, { headers: { 'lock-token': tokens[0]! } })).status, 204,
      'a lock taken as EDU\\name is released as name@edu.test');
  });

  it('refuses a foreign domain with 401 before any SMB session is set up', async () => {
    const { user, as } = await teacher();
    const before = await pooledSessions();
    for (const name of [`FOO\\${user.name}`, `BAR\\${user.name}`]) {
      const res = await as(name).request('PROPFIND', dir, { headers: { depth: '0' } });
      assert.equal(res.status, 401, name);
      assert.ok(res.headers.get('www-authenticate'), `${name}: a challenge`);
      assert.equal(await errorOf(res), 'unauthorized', name);
    }
    assert.equal(await pooledSessions(), before, 'no SMB session was set up');
    assert.equal(await smbdSessionsOf(env, user.sid), 0, 'smbd saw no logon of the account');
  });

  it('counts the dead properties of every spelling in one budget', async () => {
    const { user, as } = await teacher();
    // A property of 1.9 KiB takes about 2.5 KiB of memory: three fit in one account's 8 KiB.
    const value = 'y'.repeat(1900);
    const names = spellings(user.name);
    for (const [i, file] of ['c.md', 'd.md', 'e.md'].entries()) {
      assert.equal((await as(names[i]!).request('PROPPATCH', `${dir}/${file}`, { body: setBody(value) })).status, 207, names[i]);
    }
    for (const name of names) {
      const res = await as(name).request('PROPPATCH', `${dir}/f.md`, { body: setBody(value) });
      assert.equal(res.status, 403, name);
      assert.equal(await errorOf(res), 'user_properties_too_large', name);
    }
  });

  it('keeps no more SMB sessions of one account than smb.max_connections_per_account, however it logs on', async () => {
    const { user, as } = await teacher();
    const newPassword = `${user.password}-new`;
    const logons: [string, string][] = spellings(user.name).map((name) => [name, user.password]);
    for (const [name, password] of [...logons, ...logons]) {
      assert.equal((await as(name, password).request('PROPFIND', dir, { headers: { depth: '0' } })).status, 207, name);
      await assertSessionsAtMost(user.sid, name);
    }
    await scratch.setPassword(user.name, newPassword);
    for (const name of spellings(user.name)) {
      assert.equal((await as(name, newPassword).request('PROPFIND', dir, { headers: { depth: '0' } })).status, 207, `${name} with the new password`);
      await assertSessionsAtMost(user.sid, name);
    }
  });

  /** smbd ends a closed session's process a moment after the close: it must be down to the bound within a second. */
  async function assertSessionsAtMost(sid: string, after: string): Promise<void> {
    let sessions = await smbdSessionsOf(env, sid);
    for (let wait = 0; sessions > MAX_CONNECTIONS_PER_ACCOUNT && wait < 10; wait++) {
      await sleep(100);
      sessions = await smbdSessionsOf(env, sid);
    }
    assert.ok(sessions <= MAX_CONNECTIONS_PER_ACCOUNT, `after ${after}: smbd holds ${sessions} sessions of the account`);
  }

  const endings: [string, (user: ScratchAccount) => Promise<void>][] = [
    ['deleted', (user) => scratch.remove(user.name)],
    ['disabled', (user) => scratch.disable(user.name)],
    ['locked out', (user) => scratch.lockOut(user.name)],
    ['expired', (user) => scratch.expire(user.name)],
    ['given a new password', (user) => scratch.setPassword(user.name, `${user.password}-changed`)],
  ];
  for (const [what, change] of endings) {
    it(`ends a warm session within session_max_age + 5 s once the account is ${what}`, async () => {
      const { user, as } = await teacher();
      const client = as(`EDU\\${user.name}`);
      const propfind = () => client.request('PROPFIND', dir, { headers: { depth: '0' } });
      assert.equal((await propfind()).status, 207, 'the session is set up');
      await sleep(SESSION_MAX_AGE_S * 1000);
      assert.equal((await propfind()).status, 207, 'asked again after session_max_age, the account may log on');
      await change(user);
      const changedAt = Date.now();
      let last: Response;
      do {
        last = await propfind();
        if (last.status !== 207) break;
        await sleep(250);
      } while (Date.now() - changedAt < (SESSION_MAX_AGE_S + 5) * 1000);
      assert.equal(last.status, 401, `still served ${Date.now() - changedAt} ms after the account was ${what}`);
      assert.equal(await errorOf(last), 'session_ended');
      // Samba would take the old password for a new NTLM logon for an hour: the service refuses it itself.
      assert.equal((await propfind()).status, 401, 'and a new logon with the same credentials is refused');
    });
  }
});

// Who does what: every request runs as the SMB session of its Basic
// credentials, so the DC's NT ACLs decide (403), bad credentials are 401,
// files are created as the user (never as the indexer or another service
// account); an unreachable SMB backend answers 503 fast while the others
// keep working; dead properties survive a restart.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SmbClient } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { assertNamesNone, deploymentNames } from '../../support/anonymous-answers.js';
import { assertLogged, startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { DavClient, account } from './dav-client.js';

describe('WebDAV access as the requesting user', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let anna: DavClient;
  const dir = `_davtest-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({
      smb: { shares: [{ name: 'schule' }, { name: 'verwaltung' }, { name: 'offline', server: '127.0.0.2' }] },
    });
    anna = new DavClient(service, account(env, 'anna'));
    assert.equal(await anna.mkcol(dir), 201);
  });
  after(async () => {
    await anna.remove(dir);
    await service.stop();
  });

  it('answers 401 with a Basic challenge without or with wrong credentials, or with Negotiate (not configured here), naming nothing of the deployment', async () => {
    const anonymous = await new DavClient(service, undefined).request('PROPFIND', '', { headers: { depth: '0' } });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="edu-fileproxy", charset="UTF-8"');
    const wrong = await new DavClient(service, { user: 'anna', password: 'not her password' }).request('GET', 'Aushang.txt');
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /^Basic realm="edu-fileproxy"/);
    const negotiate = await new DavClient(service, undefined, 'schule', { authorization: 'Negotiate YWJj' }).request('GET', 'Aushang.txt');
    assert.equal(negotiate.status, 401);
    const answers = { anonymous, wrong, negotiate };
    const errors: Record<string, string> = {};
    for (const [what, res] of Object.entries(answers)) {
      const body = await res.text();
      errors[what] = (JSON.parse(body) as { error: string }).error;
      assertNamesNone(what, { headers: res.headers, body }, deploymentNames(env, ['kerberos.delegation', 'http_spn']));
    }
    assert.deepEqual([errors['wrong'], errors['negotiate']], ['logon_failure', 'negotiate_not_configured']);
    // The setting the operator lacks is in the log.
    await assertLogged(service, /"outcome":"negotiate_not_configured","detail":"[^"]*kerberos\.delegation\.http_spn/);
  });

  it('lets the NT ACLs decide: a pupil is denied the staff room (403), a teacher is not', async () => {
    const carla = new DavClient(service, account(env, 'carla'));
    assert.equal((await carla.request('GET', 'Lehrerzimmer/.wiki/index.md')).status, 403);
    assert.equal((await carla.request('PROPFIND', 'Lehrerzimmer', { headers: { depth: '1' } })).status, 403);
    assert.equal((await carla.put('Lehrerzimmer/.wiki/carla.md', 'x')).status, 403);
    assert.equal((await carla.request('GET', 'Aushang.txt')).status, 200);
    assert.equal((await anna.request('GET', 'Lehrerzimmer/.wiki/index.md')).status, 200);
    const dora = new DavClient(service, account(env, 'dora'), 'verwaltung');
    assert.equal((await dora.request('GET', '.wiki/index.md')).status, 200, 'the encrypted share, as a member of Verwaltung');
    assert.equal((await new DavClient(service, account(env, 'anna'), 'verwaltung').request('GET', '.wiki/index.md')).status, 403);
  });

  it('refuses a COPY or MOVE to another share with 403: the request, not the backend, is at fault', async () => {
    for (const method of ['COPY', 'MOVE']) {
      const res = await anna.request(method, 'Aushang.txt', { headers: { destination: `${service.url}/dav/verwaltung/Aushang.txt` } });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { error: string }).error, 'other_share');
    }
  });

  it('creates files as the user: the owner on the file server is anna, not the indexer', async () => {
    assert.equal((await anna.put(`${dir}/owned.md`, 'mine')).status, 201);
    const client = new SmbClient();
    try {
      const admin = testbedShare(client, env, env.dc_admin, 'schule');
      const sd = await admin.getSecurity(`${dir}/owned.md`);
      assert.equal(sd.owner, env.users['anna']!.sid);
      assert.notEqual(sd.owner, env.users[env.indexer.user]?.sid);
    } finally {
      await client.close();
    }
  });

  it('answers 503 naming the share (not its server) when its SMB server is down, fast, while other shares keep working', async () => {
    const started = Date.now();
    const down = await new DavClient(service, account(env, 'anna'), 'offline').request('GET', 'x.md');
    assert.equal(down.status, 503);
    const body = (await down.json()) as { error: string; message: string };
    assert.equal(body.error, 'backend_unavailable');
    assert.match(body.message, /share offline/);
    assert.doesNotMatch(body.message, /127\.0\.0\.2/);
    assert.ok(down.headers.get('retry-after'));
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
    assert.equal((await anna.request('GET', 'Aushang.txt')).status, 200);
  });
});

describe('WebDAV dead properties across a restart', () => {
  it('are still there after the service restarted', async () => {
    const env = await readTestbedEnv();
    const file = `_davtest-${randomBytes(4).toString('hex')}.md`;
    const first = await startService();
    const anna = new DavClient(first, account(env, 'anna'));
    try {
      assert.equal((await anna.put(file, 'x')).status, 201);
      const patch = await anna.request('PROPPATCH', file, {
        body: '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><s:fach xmlns:s="urn:schule">Mathe &amp; Physik</s:fach></D:prop></D:set></D:propertyupdate>',
      });
      assert.equal(patch.status, 207);
    } finally {
      await first.stop();
    }
    const second = await startService({ storage: { data_dir: dirname(first.configFile) } });
    const again = new DavClient(second, account(env, 'anna'));
    try {
      const found = await again.request('PROPFIND', file, {
        headers: { depth: '0' },
        body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><s:fach xmlns:s="urn:schule"/></D:prop></D:propfind>',
      });
      assert.equal(found.status, 207);
      assert.match(await found.text(), /<ns0:fach>Mathe &amp; Physik<\/ns0:fach>.*HTTP\/1\.1 200 OK/s);
    } finally {
      await again.remove(file);
      await second.stop();
    }
  });
});

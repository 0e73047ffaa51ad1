// The global-admin API of the webhook clients against the real service and the
// testbed's directory, reached through a TCP relay that the outage test takes down.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { AdminApi, assertError, basicAuth, logLines } from './api.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

describe('admin API /edu-api/admin/webhook-clients', () => {
  let env: TestbedEnv;
  let ldap: TcpProxy;
  let service: RunningService;
  let admin: AdminApi;

  before(async () => {
    env = await readTestbedEnv();
    const target = new URL(env.ldap.url);
    ldap = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 636) });
    service = await startService({ ldap: { url: `ldaps://127.0.0.1:${ldap.port}` } });
    admin = AdminApi.asAdmin(service.url, env);
  });
  after(async () => {
    await service.stop();
    await ldap.down();
  });

  const as = (user: string) => new AdminApi(service.url, basicAuth(user, env.users[user]!.password));

  it('creates a client with a generated key that only the reveal call shows, and logs the reveal without the key', async () => {
    const created = await admin.create({ user_agent: 'service-eventhandler' });
    assert.equal(created.status, 201);
    const { id, user_agent, api_key, created_at } = created.body;
    assert.equal(user_agent, 'service-eventhandler');
    assert.equal(api_key, '********');
    assert.ok(Math.abs(Date.parse(created_at) - Date.now()) < 60_000);
    assert.equal(created.headers.get('location'), `/edu-api/admin/webhook-clients/${id}`);

    const revealed = await admin.reveal(id);
    assert.equal(revealed.status, 200);
    assert.equal(revealed.body.id, id);
    assert.match(revealed.body.api_key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(revealed.body.api_key, 'base64url').length, 32);
    assert.equal(revealed.headers.get('cache-control'), 'no-store');

    const audit = await logLines(service, 'webhook_client_key_revealed');
    assert.equal(audit.length, 1);
    assert.deepEqual(
      (({ admin: who, webhook_client }) => ({ who, webhook_client }))(JSON.parse(audit[0]!) as { admin: string; webhook_client: string }),
      { who: env.admin.user, webhook_client: id },
    );
    assert.ok(!service.output().includes(revealed.body.api_key), 'the key is in no log line');
    assertError(await admin.reveal('no-such-client'), 404, 'client_not_found');
  });

  it('lists clients with masked keys, filtered by User-Agent; several clients may share one', async () => {
    const a = await admin.register('platform-api');
    const b = await admin.register('platform-api');
    const all = await admin.list();
    assert.equal(all.status, 200);
    assert.ok(all.body.clients.length >= 3);
    assert.ok(all.body.clients.every((c) => c.api_key === '********'));
    const platform = await admin.list('platform-api');
    assert.deepEqual(platform.body.clients.map((c) => c.id).sort(), [a.id, b.id].sort());
    assert.notEqual(a.api_key, b.api_key);
    assert.deepEqual((await admin.list('service-eventhandler')).body.clients.map((c) => c.user_agent), ['service-eventhandler']);
    assert.deepEqual((await admin.list('nothing-like-this')).body.clients, []);
  });

  it('deletes several clients by id, and one by path; unknown ids are reported', async () => {
    const [a, b, c] = [await admin.register('platform-api'), await admin.register('platform-api'), await admin.register('platform-api')];
    const many = await admin.deleteMany({ ids: [a.id, b.id, 'unknown-id'] });
    assert.equal(many.status, 200);
    assert.deepEqual(many.body, { deleted: [a.id, b.id], not_found: ['unknown-id'] });
    assert.deepEqual((await admin.deleteOne(c.id)).body, { deleted: [c.id], not_found: [] });
    assertError(await admin.deleteOne(c.id), 404, 'client_not_found');
    const left = (await admin.list()).body.clients.map((x) => x.id);
    for (const gone of [a, b, c]) assert.ok(!left.includes(gone.id));
  });

  describe('validation: 400 naming the field, keys are never chosen, changed or regenerated', () => {
    for (const field of ['api_key', 'id', 'created_at']) {
      it(`refuses a create that sets ${field}`, async () => {
        const before = (await admin.list()).body.clients.length;
        assertError(await admin.create({ user_agent: 'platform-api', [field]: 'chosen-by-the-caller-0123456789abcdef' }), 400, 'read_only_field', new RegExp(field));
        assert.equal((await admin.list()).body.clients.length, before, 'nothing was created');
      });
    }

    it('refuses bad create bodies', async () => {
      assertError(await admin.create({}), 400, 'missing_field', /user_agent/);
      assertError(await admin.create({ user_agent: 42 }), 400, 'invalid_field', /user_agent/);
      assertError(await admin.create({ user_agent: 'curl' }), 400, 'unsupported_user_agent', /service-eventhandler, platform-api/);
      assertError(await admin.create({ user_agent: 'platform-api/1.0' }), 400, 'unsupported_user_agent');
      assertError(await admin.create({ user_agent: 'platform-api', note: 'x' }), 400, 'unknown_field', /note/);
      assertError(await admin.create(['platform-api']), 400, 'body_not_object');
      assertError(await admin.raw('POST', '', '{"user_agent":'), 400, 'invalid_json');
    });

    it('refuses bad delete bodies', async () => {
      assertError(await admin.deleteMany({}), 400, 'missing_field', /ids/);
      assertError(await admin.deleteMany({ ids: [] }), 400, 'invalid_field', /ids/);
      assertError(await admin.deleteMany({ ids: 'abc' }), 400, 'invalid_field', /ids/);
      assertError(await admin.deleteMany({ ids: ['ok', 7] }), 400, 'invalid_field', /ids\[1\]/);
    });

    it('refuses to change a client or regenerate its key', async () => {
      const client = await admin.register('platform-api');
      for (const [method, path] of [['PUT', `/${client.id}`], ['PATCH', `/${client.id}`], ['POST', `/${client.id}/key`], ['PUT', `/${client.id}/key`]] as const) {
        assertError(await admin.raw(method, path, '{"api_key":"mine"}'), 400, 'client_immutable', /create a new client/);
      }
      assert.equal((await admin.reveal(client.id)).body.api_key, client.api_key, 'the key is unchanged');
    });
  });

  describe('who may call it', () => {
    it('403 for valid users who are not global admins', async () => {
      for (const user of ['anna', 'ben', 'carla']) {
        const api = as(user);
        assertError(await api.list(), 403, 'forbidden', /Schul-Admins/);
        assertError(await api.create({ user_agent: 'platform-api' }), 403, 'forbidden');
      }
    });

    it('401 with a Basic challenge for a wrong password or no credentials; 400 for malformed ones', async () => {
      for (const api of [new AdminApi(service.url, basicAuth(env.admin.user, 'wrong')), new AdminApi(service.url, undefined)]) {
        const res = await api.list();
        assertError(res, 401, 'invalid_credentials');
        assert.equal(res.headers.get('www-authenticate'), 'Basic realm="edu-fileproxy admin"');
      }
      assertError(await new AdminApi(service.url, 'Basic %%%').list(), 400, 'bad_credentials_format');
    });
  });

  it('LDAP outage: an admin with a session keeps working; a new login gets 503; back to normal afterwards', async () => {
    assert.equal((await admin.list()).status, 200, 'logged in before the outage');
    await ldap.down();
    try {
      assert.equal((await admin.list()).status, 200, 'the session is still valid');
      const created = await admin.register('platform-api');
      assert.equal((await admin.deleteOne(created.id)).status, 200);
      for (const api of [as('anna'), as('ben'), new AdminApi(service.url, basicAuth(env.admin.user, 'another-password'))]) {
        const res = await api.list();
        assertError(res, 503, 'directory_unavailable', /directory service \(LDAP\) is unavailable/);
      }
    } finally {
      await ldap.up();
    }
    assertError(await as('anna').list(), 403, 'forbidden');
    assertError(await new AdminApi(service.url, basicAuth(env.admin.user, 'another-password')).list(), 401, 'invalid_credentials');
  });
});

// The wiki under configurations that switch it off or cripple it: `elasticsearch.enabled: false` (404, and no
// connection to Elasticsearch at all) and a missing `ldap.base_dn` (no hits, never an error).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertLogged, startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { passAfter, reconcilerDetails, WikiClient, type Caller } from './wiki-service.js';

const ANNA: Caller = { user: 'anna', groups: ['Lehrer'] };

describe('elasticsearch.enabled: false', () => {
  let service: RunningService;
  let api: WikiClient;
  /** Stands where Elasticsearch would be and counts who connects. */
  let decoy: Server;
  let connections = 0;

  before(async () => {
    decoy = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const { port } = decoy.address() as { port: number };
    service = await startService({ elasticsearch: { enabled: false, url: `http://127.0.0.1:${port}` } });
    api = new WikiClient(service.url, await readTestbedEnv());
  });
  after(async () => {
    await service?.stop();
    decoy?.close();
  });

  it('answers every wiki endpoint 404 with a message naming the setting, credentials or not', async () => {
    for (const caller of [ANNA, undefined]) {
      for (const [path, body] of [['/wiki/search', { q: 'x' }], ['/wiki/roots', undefined], ['/wiki/pages?share=schule', undefined]] as const) {
        const res = await api.request<{ error: string; message: string }>(path, { ...(caller ? { caller } : {}), body });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error, 'wiki_disabled');
        assert.match(res.body.message, /elasticsearch\.enabled is false/);
      }
    }
  });

  it('never connects to Elasticsearch, and the reconciler says the wiki is off', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // past the reconciler's first-pass delay
    assert.equal(connections, 0);
    assert.match((await reconcilerDetails(service)).wiki ?? '', /disabled/);
  });
});

describe('no ldap.base_dn', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let api: WikiClient;

  before(async () => {
    env = await readTestbedEnv();
    const started = Date.now();
    service = await startService({ ldap: { base_dn: undefined } });
    api = new WikiClient(service.url, env);
    // The index (this file's own) holds the pages first, so that no hits means none shown, not none there.
    await passAfter(service, started);
  });
  after(() => service?.stop());

  it('answers 200 with no hits and no roots, and logs why', async () => {
    for (const caller of [ANNA, { user: 'fpadmin', groups: ['Schul-Admins'] }]) {
      assert.deepEqual(await api.roots(caller), { roots: [] });
      assert.deepEqual(await api.search(caller, { q: 'Schulregeln' }), { total: 0, hits: [] });
      assert.deepEqual(await api.pages(caller, 'schule', ''), { total: 0, pages: [] });
    }
    await assertLogged(service, /ldap\.base_dn is not set: group SIDs cannot be resolved, so wiki search returns no hits/);
  });
});

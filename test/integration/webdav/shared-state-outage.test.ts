// A proxy that shares its WebDAV state (cluster.shared_state: elasticsearch) whose cluster stops answering: a
// request that needs the locks or properties gets 503 shared_state_unavailable (never an answer made without the
// other proxies' locks), and once the cluster is back the lock taken before is there. Elasticsearch is reached
// through a TCP relay the test takes down (test/support/tcp-proxy.ts); the indices are the test's own.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { deleteIndicesStartingWith, testSearchClient } from '../../support/es-indices.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv } from '../../testbed/env.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import { DavClient, account } from './dav-client.js';

const PREFIX = `test-dav-outage-${randomUUID().slice(0, 8)}`;
const LOCK_BODY = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

describe('WebDAV state shared through a cluster that stops answering', () => {
  let relay: TcpProxy;
  let service: RunningService;
  let dav: DavClient;
  let es: Client;
  const scratch = `_outage-${randomBytes(4).toString('hex')}`;

  before(async () => {
    const env = await readTestbedEnv();
    es = testSearchClient(env.es.url);
    const inFront = await TcpProxy.inFrontOf(env.es.url);
    relay = inFront.relay;
    service = await startService({
      elasticsearch: { url: inFront.url },
      cluster: { shared_state: 'elasticsearch', index_prefix: PREFIX },
    });
    dav = new DavClient(service, account(env, 'anna'));
    assert.equal(await dav.mkcol(scratch), 201);
  });
  after(async () => {
    await relay?.up();
    await dav?.remove(scratch);
    await service?.stop();
    await relay?.down();
    await deleteIndicesStartingWith(es, PREFIX);
    await es.close();
  });

  it('answers 503 shared_state_unavailable while the cluster is down, and keeps the lock taken before', async () => {
    const file = `${scratch}/page.md`;
    assert.equal((await dav.put(file, 'v1')).status, 201);
    const locked = await dav.request('LOCK', file, { headers: { 'content-type': 'application/xml' }, body: LOCK_BODY });
    assert.equal(locked.status, 200);
    await relay.down();
    for (const res of [await dav.put(file, 'while down'), await dav.request('PROPFIND', file, { headers: { depth: '0' } })]) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal(((await res.json()) as { error: string }).error, 'shared_state_unavailable');
    }
    await relay.up();
    // The client takes the node back after a pause of its own (its connection pool's resurrection).
    let after = 503;
    for (const since = Date.now(); after === 503 && Date.now() - since < 15_000; await new Promise((r) => setTimeout(r, 200))) {
      after = (await dav.put(file, 'after, without the token')).status;
    }
    assert.equal(after, 423);
    const token = locked.headers.get('lock-token')!;
    assert.equal((await dav.request('UNLOCK', file, { headers: { 'lock-token': token } })).status, 204);
    assert.equal((await dav.text(file)).body, 'v1');
  });
});

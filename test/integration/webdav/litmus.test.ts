// litmus, the WebDAV server test suite, against the running service as a
// testbed user with change rights on the share root (anna, group Lehrer):
// every test of the basic, copymove, props, locks and http suites passes, with one http-front thread and with two
// sharing the port (litmus opens several connections; both threads must have served some of them).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { DavClient, account } from './dav-client.js';
import { LITMUS_SUITES as SUITES, runLitmus } from './litmus.js';

/** Requests served by each http-front thread, from /healthz. */
async function servedPerFront(service: RunningService): Promise<Record<string, number>> {
  const health = await (await fetch(`${service.url}/healthz`)).json() as { actors: Record<string, { details?: { served?: number } }> };
  return Object.fromEntries(Object.entries(health.actors)
    .filter(([name]) => name.startsWith('http-front'))
    .map(([name, actor]) => [name, actor.details?.served ?? 0]));
}

for (const fronts of [1, 2]) describe(`litmus against /dav/schule/ with ${fronts} http-front thread(s)`, () => {
  let service: RunningService;
  let dav: DavClient;
  const scratch = `_litmus-${randomBytes(4).toString('hex')}`;

  before(async () => {
    service = await startService({ workers: { http_front: fronts } });
    dav = new DavClient(service, account(await readTestbedEnv(), 'anna'));
    assert.equal(await dav.mkcol(scratch), 201);
  });
  after(async () => {
    await dav.remove(scratch);
    await service.stop();
  });

  it(`passes every test of ${SUITES.join(', ')}`, async () => {
    const { stdout, summaries } = await runLitmus(`${dav.url(scratch)}/`, dav.as!);
    assert.deepEqual(summaries.map((s) => s.suite), SUITES, stdout);
    for (const s of summaries) assert.equal(s.failed, 0, `${s.suite}: ${s.failed} of ${s.run} failed\n${stdout}`);
    assert.ok(summaries.reduce((n, s) => n + s.passed, 0) >= 100, stdout);
    const served = await servedPerFront(service);
    console.log(`litmus, ${fronts} http-front(s): ${summaries.map((s) => `${s.suite} ${s.passed}/${s.run}`).join(', ')}; requests served ${JSON.stringify(served)}`);
    assert.equal(Object.keys(served).length, fronts);
    for (const count of Object.values(served)) assert.ok(count > 0, `every front served some requests: ${JSON.stringify(served)}`);
  });
});

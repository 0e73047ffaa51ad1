// Fault: an actor's worker thread killed while it serves. The supervisor runs in this process (as in
// test/integration/supervisor.test.ts) so the test can end the ldap-resolver's thread from outside
// (support/fault-drills.ts: the thread exits, no chance to report or clean up) while wiki searches wait in it on the
// directory, which a held relay keeps silent. Those searches must fail at once with a JSON 503, requests that
// do not need the actor succeed, and the service is back to full function within 1 s (the demand).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig, readIndexerPassword } from '../../src/config/index.js';
import type { HealthReport } from '../../src/runtime/health.js';
import { Supervisor } from '../../supervisor/supervisor.js';
import { killActor } from '../support/fault-drills.js';
import { waitFor, writeServiceConfig } from '../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { describeOutcomes, ServiceCalls, type Outcome } from './support/load.js';

const KILLED = 'ldap-resolver';
const BACK_WITHIN_MS = 1_000;
/** Teachers who may search the share's wiki, and a readable file that needs no directory to serve. */
const USERS = ['anna', 'ben'];
const SEEDED_PAGE = '.wiki/regeln.md';

/** Searches one after the other until one answers 200; all tries. */
async function firstSuccess(calls: ServiceCalls): Promise<Outcome[]> {
  const tries: Outcome[] = [];
  const deadline = Date.now() + 10 * BACK_WITHIN_MS;
  do tries.push(await calls.search());
  while (tries.at(-1)!.status !== 200 && Date.now() < deadline);
  return tries;
}

describe(`the ${KILLED} thread killed while serving`, () => {
  let env: TestbedEnv;
  let ldap: TcpProxy;
  let supervisor: Supervisor;
  let url: string;
  before(async () => {
    env = await readTestbedEnv();
    const relay = await TcpProxy.inFrontOf(env.ldap.url);
    ldap = relay.relay;
    const { file, port } = await writeServiceConfig({ ldap: { url: relay.url }, reconciler: { interval: '1h' } });
    const { config } = loadConfig(file);
    supervisor = new Supervisor(config, { indexerPassword: readIndexerPassword(config) }, pino({ level: 'silent' }));
    await supervisor.start();
    url = `http://127.0.0.1:${port}`;
    // The service indexes into this file's own index: the test's searches need its first pass to have filled it.
    // Asked of /healthz, not by a search, which would fill the directory cache the killed thread must be needed for.
    await waitFor(async () => {
      const health = (await (await fetch(`${url}/healthz`)).json()) as HealthReport;
      return ((health.actors['reconciler']?.details ?? {}) as { lastPass?: unknown }).lastPass != null;
    }, 60_000);
  });
  after(async () => {
    await supervisor?.stop();
    await ldap?.down();
  });

  it('fails its in-flight requests with 503, serves the rest, and is back within 1 s', async () => {
    const callers = USERS.map((user) => ServiceCalls.as(url, env, user));
    ldap.hold();
    const searches = callers.map((calls) => calls.search());
    // Long enough for the searches to reach the actor and wait there on the silent directory.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const reads = callers.map((calls) => calls.get(SEEDED_PAGE));
    await killActor(KILLED);
    const killedAt = Date.now(); // the thread is gone (reaching it through the inspector took a while before)
    ldap.release();
    const recovery = firstSuccess(callers[0]!);

    const settled = (o: Outcome) => o.startedAt + o.ms - killedAt;
    for (const search of await Promise.all(searches)) {
      assert.equal(search.status, 503, describeOutcomes([search]));
      assert.deepEqual(Object.keys(search.json as object).sort(), ['error', 'message', 'status']);
      assert.equal((search.json as { error: string }).error, 'service_unavailable');
      assert.ok(settled(search) < BACK_WITHIN_MS, `answered ${settled(search)} ms after the kill`);
    }
    for (const read of await Promise.all(reads)) assert.equal(read.status, 200, describeOutcomes([read]));

    // Full function (login, groups, index): the first search that succeeds was sent within 1 s of the kill.
    const tries = await recovery;
    const back = tries.at(-1)!;
    assert.ok((back.json as { total?: number }).total! > 0, describeOutcomes(tries));
    assert.ok(back.startedAt - killedAt <= BACK_WITHIN_MS, `a search sent ${back.startedAt - killedAt} ms after the kill was the first to succeed:\n${describeOutcomes(tries)}`);

    const health = (await (await fetch(`${url}/healthz`)).json()) as HealthReport;
    assert.equal(health.status, 'ok');
    for (const [name, actor] of Object.entries(health.actors)) {
      assert.equal(actor.state, 'running', name);
      assert.equal(actor.restarts, name === KILLED ? 1 : 0, name);
    }
    assert.match(health.actors[KILLED]!.lastError ?? '', /exited with code/);
  });
});

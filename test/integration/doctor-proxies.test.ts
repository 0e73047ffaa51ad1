// `fileproxy doctor` over real proxies of the same shares: each running service announces its shared-state settings
// in the testbed's Elasticsearch, and doctor warns, naming the proxies and the setting, when two disagree.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { doctor } from '../support/doctor.js';
import { deleteIndicesStartingWith, testSearchClient } from '../support/es-indices.js';
import { startService, waitFor, type RunningService } from '../support/service.js';
import { readTestbedEnv } from '../testbed/env.js';

const CHECK = 'proxies of the same shares';

describe('fileproxy doctor: proxies of the same shares', () => {
  // An index prefix of this file's own, so that services of other tests on the testbed are not compared with these.
  const prefix = `doctor-proxies-${randomUUID().slice(0, 8)}`;
  const index = `${prefix}-proxies`;
  let es: Client;
  const services: RunningService[] = [];
  let agreeing: RunningService[] = [];

  /**
   * A service of the testbed's shares on this file's index, its reconciler quiet; announced once doctor can see it:
   * found by a search, as doctor finds it, not only by id (a get sees a document before the index's next refresh).
   */
  async function start(overrides: Record<string, Record<string, unknown>>): Promise<RunningService> {
    const service = await startService({ elasticsearch: { index_prefix: prefix }, reconciler: { watch: false, interval: '24h' }, ...overrides });
    services.push(service);
    await waitFor(async () => (await es.count({ index, query: { ids: { values: [nameOf(service)] } } }, { ignore: [404] })).count === 1, 10_000);
    return service;
  }
  const nameOf = (service: RunningService) => `${hostname()}:${new URL(service.url).port}`;
  const linesOf = (lines: string[]) => lines.filter((l) => l.includes(`${CHECK}:`));

  before(async () => {
    const env = await readTestbedEnv();
    es = testSearchClient(env.es.url);
    agreeing = [await start({ cluster: { shared_state: 'elasticsearch' } }), await start({ cluster: { shared_state: 'elasticsearch' } })];
  });

  after(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await deleteIndicesStartingWith(es, prefix);
    await es.close();
  });

  it('says that proxies with the same settings agree, naming them', async () => {
    const { code, lines } = await doctor(agreeing[0]!.configFile);
    assert.equal(code, 0, lines.join('\n'));
    const [line, ...more] = linesOf(lines);
    assert.deepEqual(more, [], lines.join('\n'));
    assert.match(line!, /^ok {3}proxies of the same shares: 2 proxy\(ies\) seen/);
    for (const service of agreeing) assert.ok(line!.includes(nameOf(service)), line);
  });

  it('warns, naming the proxies and the setting, when they disagree; a stopped proxy is left out', async () => {
    const alone = await start({ cluster: { shared_state: 'none' } });
    const otherWindow = await start({ cluster: { shared_state: 'elasticsearch', index_prefix: `${prefix}-other` }, webhooks: { dedupe_size: 50 } });
    const { code, lines } = await doctor(agreeing[0]!.configFile);
    // A warning is no failure: the proxies work, each as configured.
    assert.equal(code, 0, lines.join('\n'));
    const warnings = linesOf(lines);
    assert.deepEqual(warnings.map((l) => /^WARN proxies of the same shares: (\S+) differs/.exec(l)?.[1]),
      ['cluster.shared_state', 'cluster.index_prefix', 'webhooks.dedupe_size'], lines.join('\n'));
    assert.ok(warnings[0]!.includes(`${nameOf(alone)} (none)`) && warnings[0]!.includes(`${nameOf(agreeing[0]!)} (elasticsearch)`), warnings[0]);
    assert.ok(warnings[1]!.includes(`${nameOf(otherWindow)} (${prefix}-other)`) && warnings[1]!.includes(`(${prefix}-shared)`), warnings[1]);
    assert.ok(warnings[2]!.includes(`${nameOf(otherWindow)} (50)`) && warnings[2]!.includes('(100)'), warnings[2]);
    assert.ok(warnings[0]!.includes('both serve //127.0.0.1/schule, //127.0.0.1/verwaltung'), warnings[0]);
    // Each warning comes with its fix.
    for (const warning of warnings) assert.match(lines[lines.indexOf(warning) + 1] ?? '', /^ {5}fix: \S/);

    // A proxy that stops withdraws its announcement: doctor compares the running ones at once.
    await Promise.all([alone.stop(), otherWindow.stop()]);
    const [line, ...more] = linesOf((await doctor(agreeing[0]!.configFile)).lines);
    assert.deepEqual(more, []);
    assert.match(line!, /^ok {3}proxies of the same shares: 2 proxy\(ies\) seen/);
  });
});

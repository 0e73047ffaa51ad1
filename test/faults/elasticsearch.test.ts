// Fault: Elasticsearch killed (SIGKILL) under mixed load. WebDAV reads and writes keep succeeding, wiki search
// answers 200 with no hits and `degraded: true`, nothing crashes; once Elasticsearch runs again, one reconciler
// pass brings the index back to the shares, document by document (the post-write hook buffered nothing).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameDocuments, expectedFacts, indexedFacts, runJob, scratchService, shareAs } from '../integration/reconcile/support.js';
import { assertNothingCrashed } from '../support/health.js';
import { serviceIndex } from '../support/service.js';
import { createScratchWiki, describeOutcomes, MixedLoad, ServiceCalls } from './support/load.js';
import { killElasticsearch, restoreTestbed, restoreTestbedAfter } from './support/testbed-servers.js';

const PAGES = 6;

describe('Elasticsearch killed under load', () => {
  restoreTestbedAfter();
  const fixture = scratchService('_fault-es');

  it('keeps WebDAV working, searches degraded, and one pass repairs the index', async () => {
    const calls = ServiceCalls.as(fixture.service.url, fixture.env);
    await createScratchWiki(calls, fixture.scratch, PAGES);
    const load = new MixedLoad(calls, fixture.scratch, PAGES);
    let down = 0;
    try {
      await load.until(0, 9);
      await killElasticsearch();
      down = Date.now();
      await load.until(down, 30);
    } finally {
      await load.stop();
    }
    const bad = load.outcomes.filter((o) => o.status === 0 || o.status >= 300);
    assert.deepEqual(bad, [], `failed requests:\n${describeOutcomes(bad)}`);
    const whileDown = load.since(down);
    for (const kind of ['dav-get', 'dav-put', 'search'] as const) {
      assert.ok(whileDown.some((o) => o.kind === kind), `${kind} requests were made while Elasticsearch was down`);
    }
    for (const search of whileDown.filter((o) => o.kind === 'search')) {
      assert.deepEqual(search.json, { total: 0, hits: [], degraded: true });
    }
    await assertNothingCrashed(fixture.service);

    await restoreTestbed();
    await fixture.es.cluster.health({ index: serviceIndex, wait_for_status: 'yellow', timeout: '60s' });
    const pass = await runJob(fixture.service, { kind: 'pass' });
    assert.equal(pass.state, 'finished', JSON.stringify(pass.errors));
    const indexer = shareAs(fixture.smb, fixture.env, fixture.env.indexer, 'schule');
    assertSameDocuments(await indexedFacts(fixture.es, 'schule'), await expectedFacts(indexer, 'schule'), 'schule');
    const search = await calls.search();
    assert.equal(search.status, 200);
    assert.ok((search.json as { total: number }).total > 0, `search finds again: ${JSON.stringify(search.json)}`);
    await assertNothingCrashed(fixture.service);
  });
});

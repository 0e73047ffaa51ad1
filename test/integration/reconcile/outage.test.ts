// Elasticsearch gone while a reconciler pass writes: the pass stops cleanly and says so (report, log); the service
// keeps answering; once Elasticsearch is back, the next pass completes the repair, document by document. The
// service reaches Elasticsearch through a relay the test takes down (test/support/tcp-proxy.ts): the service sees
// a stopped node, while the testbed's keeps serving the other files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startJob } from '../../../src/control-socket/client.js';
import type { JobInfo } from '../../../src/indexing/reconciler/jobs.js';
import { serviceIndex, waitFor } from '../../support/service.js';
import { markdownPage } from './markdown.js';
import { assertSameDocuments, expectedFacts, indexedFacts, runJob, scratchService, shareAs, socketOf, writeFiles, type DocumentFacts } from './support.js';

const FOLDERS = 20;
const PAGES_PER_FOLDER = 20;

describe('an Elasticsearch outage during a pass', () => {
  // Without the change watch, which would index the pages before the pass could be interrupted.
  const fixture = scratchService('_reconout', undefined, { watch: false, relayElasticsearch: true });
  const inScratch = (facts: Map<string, DocumentFacts>) => new Map([...facts].filter(([, f]) => f.path.startsWith(`${fixture.scratch}/`)));

  it('stops the pass cleanly, and the next pass completes the repair', async () => {
    const files: [string, string][] = [];
    for (let f = 0; f < FOLDERS; f++) {
      for (let p = 0; p < PAGES_PER_FOLDER; p++) files.push([`${fixture.scratch}/Ordner-${f}/.wiki/seite-${p}.md`, markdownPage(f * 1000 + p, 1500)]);
    }
    await writeFiles(fixture.admin, files);

    let outage: Promise<void> | undefined;
    let interrupted: JobInfo;
    try {
      const job = await startJob(socketOf(fixture.service), { kind: 'pass' }, (info) => {
        if (outage === undefined && info.added >= 50) outage = fixture.esRelay!.down();
      });
      interrupted = await job.finished;
      assert.ok(outage, `Elasticsearch went away while the pass ran: ${JSON.stringify(interrupted)}`);
      await outage;
      assert.equal(interrupted.state, 'failed');
      assert.match(interrupted.errors.join('\n'), new RegExp(`${serviceIndex}|ECONNREFUSED|ConnectionError`));
      assert.ok(interrupted.indexed < files.length, `indexed ${interrupted.indexed} before the outage`);
      // It says what it did, and the service keeps answering.
      await waitFor(async () => fixture.service.output().includes('"msg":"wiki pass failed with problems"'), 5_000);
      assert.equal((await fetch(`${fixture.service.url}/healthz`)).status, 200);
    } finally {
      await fixture.esRelay!.up();
    }

    const repair = await runJob(fixture.service, { kind: 'pass' });
    assert.equal(repair.state, 'finished', JSON.stringify(repair.errors));
    assert.ok(repair.added > 0, 'the pass after the outage indexed what the interrupted one did not');
    const indexer = shareAs(fixture.smb, fixture.env, fixture.env.indexer, 'schule');
    const expected = inScratch(await expectedFacts(indexer, 'schule', fixture.scratch));
    assert.equal(expected.size, files.length);
    assertSameDocuments(inScratch(await indexedFacts(fixture.es, 'schule')), expected, fixture.scratch);
  });
});

// The post-write hook's batching and dropping (PageChanges on the pass's IndexWriter, its batches rendered and
// written on this thread as an indexer thread does) against a scripted stand-in for the client's transport; the
// real Elasticsearch, SMB and pools are exercised in test/integration/reconcile/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client, estypes } from '@elastic/elasticsearch';
import { silentLog } from '../../../src/common/logger.js';
import type { PageAddress } from '../../../src/wiki/page-change.js';
import type { ChangedPageOutcome } from '../../../src/indexing/listing.js';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { PageChanges, type PageChangesOptions } from '../../../src/indexing/reconciler/page-changes.js';
import { documentId } from '../../../src/wiki/document-id.js';
import { FACTS } from './fixtures.js';

interface BulkCall {
  path: string;
  querystring: Record<string, string>;
  /** The NDJSON lines, parsed; a document reduced to its title. */
  lines: object[];
}

function asLine(text: string): object {
  const line = JSON.parse(text) as Record<string, unknown>;
  return 'title' in line ? { title: line['title'] } : line;
}

/** A client whose transport records `_bulk` calls and answers with `answer` (or waits for `gate` first). */
function fakeClient(answer: (call: BulkCall) => estypes.BulkResponse | Error, gate?: () => Promise<void>) {
  const calls: BulkCall[] = [];
  const client = {
    transport: {
      async request(params: { path: string; querystring: Record<string, string>; bulkBody: string }): Promise<estypes.BulkResponse> {
        const call = { path: params.path, querystring: params.querystring, lines: params.bulkBody.trim().split('\n').map(asLine) };
        calls.push(call);
        if (gate) await gate();
        const result = answer(call);
        if (result instanceof Error) throw result;
        return result;
      },
    },
  } as unknown as Client;
  return { client, calls };
}

function okResponse(call: BulkCall): estypes.BulkResponse {
  const items = call.lines
    .filter((line) => 'index' in line || 'delete' in line)
    .map((line) => {
      const [action, meta] = Object.entries(line)[0] as [string, { _id: string }];
      return { [action]: { _id: meta._id, _index: 'x', status: action === 'delete' ? 404 : 201 } };
    });
  return { took: 1, errors: false, items } as estypes.BulkResponse;
}

const page = (name: string): PageAddress => ({ server: 'fs1', share: 'schule', path: `.wiki/${name}.md` });
const idOf = (name: string) => documentId('fs1', 'schule', `.wiki/${name}.md`);
/**
 * Every page reads as a Markdown page whose title is its name (and `version`, when given, the text); a page that
 * still has the version the hook names is unchanged, as the pool task answers.
 */
const pages = (versions: Record<string, string> = {}) => async (address: PageAddress, indexedVersion?: string): Promise<ChangedPageOutcome> => {
  const name = address.path.slice(6, -3);
  const version = versions[name] ?? name;
  if (version === indexedVersion) return { status: 'unchanged' };
  const content = new TextEncoder().encode(`# ${version}\n`);
  return { status: 'read', page: { page: address, id: idOf(name), version, facts: { ...FACTS, size: content.length }, content } };
};

function hookOf(client: Client, options: Partial<PageChangesOptions> = {}): PageChanges {
  return new PageChanges({ bulk: bulkWriterOn(client), alias: 'test-alias', readPage: pages(), writable: () => true, gatherMs: 60_000, log: silentLog, ...options });
}

/** Lets queued changes be loaded and handed to the writer. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('post-write hook (PageChanges)', () => {
  it('a page written again with the version it was just indexed with is not loaded or written again; a change, or the window passing, is', async () => {
    const { client, calls } = fakeClient(okResponse);
    const versions: Record<string, string> = { a: 'saved' };
    const asked: (string | undefined)[] = [];
    const options = { concurrency: 1, gatherMs: 5 };
    const hook = hookOf(client, { ...options, readPage: async (p, v) => (asked.push(v), pages(versions)(p, v)) });
    hook.pageChanged({ type: 'page-written', page: page('a') }); // the WebDAV save
    await settle();
    hook.pageChanged({ type: 'page-written', page: page('a') }); // the change watch's echo of it
    await settle();
    assert.deepEqual(asked, [undefined, 'saved']);
    assert.equal(hook.stats().hook.unchanged, 1);
    versions['a'] = 'edited over SMB';
    hook.pageChanged({ type: 'page-written', page: page('a') });
    await settle();
    await hook.close(1_000);
    assert.deepEqual(calls.flatMap((c) => c.lines).filter((l) => 'index' in l).length, 2, 'the save and the real change');
    assert.deepEqual(hook.stats().hook, { queued: 0, running: 0, applied: 2, ignored: 0, failed: 0, unchanged: 1, dropped: 0 });

    const forgetful = hookOf(fakeClient(okResponse).client, { ...options, echoWindowMs: 0, readPage: async (p, v) => (asked.push(v), pages(versions)(p, v)) });
    asked.length = 0;
    forgetful.pageChanged({ type: 'page-written', page: page('a') });
    await settle();
    forgetful.pageChanged({ type: 'page-written', page: page('a') });
    await settle();
    await forgetful.close(1_000);
    assert.deepEqual(asked, [undefined, undefined], 'past the window the page is read in full');
  });

  it('the second change of a page waits for the first one\'s load, so the echo of a save is settled even while the save is still being read', async () => {
    const { client } = fakeClient(okResponse);
    const slow = async (p: PageAddress, v?: string): Promise<ChangedPageOutcome> => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return pages({ a: 'saved' })(p, v);
    };
    const hook = hookOf(client, { concurrency: 4, gatherMs: 5, readPage: slow });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    await hook.close(1_000);
    assert.deepEqual([hook.stats().hook.applied, hook.stats().hook.unchanged, hook.stats().bulk.upserted], [1, 1, 1]);
  });

  it('sends one batch through the alias; the last operation on a page wins', async () => {
    const { client, calls } = fakeClient(okResponse);
    const versions: Record<string, string> = { a: 'first' };
    const hook = hookOf(client, { readPage: async (p, v) => pages(versions)(p, v), concurrency: 1 });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    hook.pageChanged({ type: 'page-written', page: page('b') });
    await settle();
    versions['a'] = 'second';
    hook.pageChanged({ type: 'page-written', page: page('a') });
    hook.pageChanged({ type: 'page-deleted', page: page('c') });
    await settle();
    assert.equal(calls.length, 0, 'nothing is sent before the gathering time');
    await hook.close(1_000);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.path, '/test-alias/_bulk');
    assert.equal(calls[0]!.querystring['require_alias'], 'true', 'never auto-creates an index under the alias name');
    assert.deepEqual(calls[0]!.lines, [
      { index: { _id: idOf('a') } },
      { title: 'first' },
      { index: { _id: idOf('b') } },
      { title: 'b' },
      { index: { _id: idOf('a') } },
      { title: 'second' },
      { delete: { _id: idOf('c') } },
    ]);
    assert.deepEqual(hook.stats().bulk, { upserted: 3, deleted: 1, failed: 0, dropped: 0 });
  });

  it('sends a partial batch after the gathering time', async () => {
    const { client, calls } = fakeClient(okResponse);
    const hook = hookOf(client, { gatherMs: 30 });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    await settle();
    assert.equal(calls.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(calls.length, 1);
    await hook.close(1_000);
    assert.equal(calls.length, 1, 'nothing was left pending');
  });

  it('operations that come while a batch is on its way go together as soon as it is answered, without waiting to gather', async () => {
    let answer!: () => void;
    const gate = () => new Promise<void>((resolve) => (answer = resolve));
    const { client, calls } = fakeClient(okResponse, gate);
    const gatherMs = 200;
    const hook = hookOf(client, { gatherMs });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    await new Promise((resolve) => setTimeout(resolve, gatherMs + 50));
    assert.equal(calls.length, 1, 'the first batch left after gathering');
    for (const name of ['b', 'c', 'd']) hook.pageChanged({ type: 'page-written', page: page(name) });
    await new Promise((resolve) => setTimeout(resolve, gatherMs + 50));
    assert.equal(calls.length, 1, 'nothing more is sent while the first batch is unanswered, however long it takes');
    hook.pageChanged({ type: 'page-written', page: page('e') });
    await settle();
    answer();
    await new Promise((resolve) => setTimeout(resolve, gatherMs / 4));
    assert.equal(calls.length, 2, 'the answer sends the next batch at once, not after gathering');
    assert.deepEqual(calls[1]!.lines.filter((l) => 'index' in l), ['b', 'c', 'd', 'e'].map((name) => ({ index: { _id: idOf(name) } })), 'one batch, the last change just before the answer included');
    answer();
    await hook.close(1_000);
    assert.equal(calls.length, 2);
  });

  it('asks for a refresh after each batch Elasticsearch took, not after one it did not take', async () => {
    let down = false;
    const { client } = fakeClient((call) => (down ? new Error('connect ECONNREFUSED 127.0.0.1:9200') : okResponse(call)));
    let refreshes = 0;
    const hook = hookOf(client, { gatherMs: 5, refresh: () => refreshes++ });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(refreshes, 1);
    down = true;
    hook.pageChanged({ type: 'page-written', page: page('b') });
    await hook.close(1_000);
    assert.equal(refreshes, 1, 'a dropped batch has nothing to show');
  });

  it('counts documents Elasticsearch rejects one by one', async () => {
    const { client } = fakeClient(() => ({
      took: 1,
      errors: true,
      items: [
        { index: { _id: idOf('a'), _index: 'x', status: 201 } },
        { index: { _id: idOf('b'), _index: 'x', status: 400, error: { type: 'strict_dynamic_mapping_exception', reason: 'no' } } },
      ],
    }));
    const warnings: object[] = [];
    const hook = hookOf(client, { log: { info: () => undefined, warn: (details) => warnings.push(details) } });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    hook.pageChanged({ type: 'page-written', page: page('b') });
    await hook.close(1_000);
    assert.deepEqual(hook.stats().bulk, { upserted: 1, deleted: 0, failed: 1, dropped: 0 });
    assert.equal(warnings.length, 1);
  });

  it('drops and counts a batch Elasticsearch does not take, never sends it again, and writes the next one', async () => {
    let down = true;
    const { client, calls } = fakeClient((call) => (down ? new Error('connect ECONNREFUSED 127.0.0.1:9200') : okResponse(call)));
    const hook = hookOf(client, { gatherMs: 20 });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    hook.pageChanged({ type: 'page-deleted', page: page('b') });
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(calls.length, 1);
    assert.deepEqual(hook.stats().bulk, { upserted: 0, deleted: 0, failed: 0, dropped: 2 });
    down = false;
    hook.pageChanged({ type: 'page-written', page: page('c') });
    await hook.close(1_000);
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1]!.lines, [{ index: { _id: idOf('c') } }, { title: 'c' }]);
    assert.deepEqual(hook.stats().bulk, { upserted: 1, deleted: 0, failed: 0, dropped: 2 });
  });

  it('holds at most maxQueued changes while loading is slow, and drops the rest', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { client, calls } = fakeClient(okResponse);
    const hook = hookOf(client, { maxQueued: 2, concurrency: 1, readPage: async (p) => released.then(() => pages()(p)) });
    for (const name of ['a', 'b', 'c', 'd', 'e']) hook.pageChanged({ type: 'page-written', page: page(name) });
    // `a` is being loaded, `b` and `c` wait, `d` and `e` found the queue full.
    assert.equal(hook.stats().hook.dropped, 2);
    release();
    await hook.close(1_000);
    assert.equal(calls.length, 1);
    assert.deepEqual(hook.stats().bulk, { upserted: 3, deleted: 0, failed: 0, dropped: 0 });
  });

  it('drops changes while the index is not writable, and after close', async () => {
    const { client, calls } = fakeClient(okResponse);
    let writable = false;
    const hook = hookOf(client, { writable: () => writable });
    hook.pageChanged({ type: 'page-written', page: page('a') });
    writable = true;
    hook.pageChanged({ type: 'page-written', page: page('b') });
    await hook.close(1_000);
    hook.pageChanged({ type: 'page-written', page: page('c') });
    await settle();
    assert.equal(calls.length, 1);
    assert.equal(hook.stats().hook.dropped, 2);
    assert.deepEqual(hook.stats().bulk, { upserted: 1, deleted: 0, failed: 0, dropped: 0 });
  });

  it('leaves the index as it is for a page that cannot be loaded (too large, refused), as a pass does', async () => {
    const { client, calls } = fakeClient(okResponse);
    const hook = hookOf(client, { readPage: async () => ({ status: 'failed', error: '3000000 bytes, more than the 2097152 indexed' }) });
    hook.pageChanged({ type: 'page-written', page: page('gross') });
    await hook.close(1_000);
    assert.equal(calls.length, 0);
    assert.deepEqual(hook.stats().hook, { queued: 0, running: 0, applied: 0, ignored: 0, failed: 1, unchanged: 0, dropped: 0 });
  });

  it('counts a page the indexer cannot render as failed and writes the rest of its batch', async () => {
    const { client, calls } = fakeClient(okResponse);
    const notWiki = async (address: PageAddress) => {
      const outcome = await pages()(address);
      // The page's address is not a wiki page's: buildWikiDocument refuses it.
      return outcome.status === 'read' && address.path.includes('kaputt') ? { ...outcome, page: { ...outcome.page, page: { ...address, path: 'kaputt.txt' } } } : outcome;
    };
    const warnings: object[] = [];
    const hook = hookOf(client, { readPage: notWiki, log: { info: () => undefined, warn: (details) => warnings.push(details) } });
    hook.pageChanged({ type: 'page-written', page: page('kaputt') });
    hook.pageChanged({ type: 'page-written', page: page('heil') });
    await hook.close(1_000);
    assert.deepEqual(calls[0]!.lines, [{ index: { _id: idOf('heil') } }, { title: 'heil' }]);
    assert.equal(hook.stats().hook.failed, 1);
    assert.deepEqual(hook.stats().bulk, { upserted: 1, deleted: 0, failed: 0, dropped: 0 });
    assert.equal(warnings.length, 1);
  });

  it('deletes the document of a page that is gone or unreadable when it is loaded', async () => {
    const { client, calls } = fakeClient(okResponse);
    const outcomes: ChangedPageOutcome[] = [{ status: 'gone' }, { status: 'denied' }];
    const hook = hookOf(client, { concurrency: 1, readPage: async () => outcomes.shift()! });
    hook.pageChanged({ type: 'page-written', page: page('weg') });
    hook.pageChanged({ type: 'page-written', page: page('gesperrt') });
    await hook.close(1_000);
    assert.deepEqual(calls[0]!.lines, [{ delete: { _id: idOf('weg') } }, { delete: { _id: idOf('gesperrt') } }]);
  });
});

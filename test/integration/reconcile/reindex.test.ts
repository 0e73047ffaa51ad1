// `fileproxy reindex` against the running service and the real testbed: a share with 1,000 pages indexed again
// while searches and webhook posts keep coming (every one answered 200), the JSON report, a dry run that
// changes nothing, Ctrl-C stopping the job in the service, and the answers without a running service.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import type { JobInfo } from '../../../src/indexing/reconciler/jobs.js';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { documentId } from '../../../src/wiki/document-id.js';
import { serviceIndex, waitFor, writeServiceConfig } from '../../support/service.js';
import { AdminApi, postWebhook } from '../webhooks/api.js';
import { WikiClient } from '../wiki/wiki-service.js';
import { markdownPage } from './markdown.js';
import { indexedFacts, reconcilerStatus, scratchService, SERVER, writeFiles } from './support.js';
import { FILEPROXY_CLI } from '../../support/cli-path.js';

const FOLDERS = 20;
const PAGES_PER_FOLDER = 50;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `fileproxy reindex ...`; `whileRunning` gets the child process (to interrupt it). */
function reindex(args: string[], whileRunning?: (child: ReturnType<typeof spawn>) => void): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FILEPROXY_CLI, 'reindex', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    whileRunning?.(child);
  });
}

describe('fileproxy reindex', () => {
  const fixture = scratchService('_reconcli', async ({ admin, scratch }) => {
    const files: [string, string][] = [];
    for (let f = 0; f < FOLDERS; f++) {
      for (let p = 0; p < PAGES_PER_FOLDER; p++) files.push([`${scratch}/Klasse-${f}/.wiki/seite-${p}.md`, markdownPage(f * 100 + p, 1024 + ((f * 7 + p * 13) % 8) * 512)]);
    }
    await writeFiles(admin, files);
  }, { watch: false });
  const config = () => ['--config', fixture.service.configFile];

  it('without a running service says so and exits non-zero', async () => {
    const { file } = await writeServiceConfig();
    const result = await reindex(['--all', '--config', file]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no running service: nothing answers on .*reconciler\.sock/);
    assert.equal(result.stdout, '');
  });

  it('refuses bad command lines and unknown shares, naming the problem', async () => {
    const usage = await reindex(['--share', 'schule', '--all', ...config()]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /either --share or --all/);
    const unknown = await reindex(['--share', 'gibtsnicht', ...config()]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /not a share in smb\.shares: 'gibtsnicht' \(configured: schule, verwaltung\)/);
  });

  it('--dry-run reports the drift and changes nothing', async () => {
    const added = `${fixture.scratch}/Klasse-0/.wiki/nachgereicht.md`;
    const changed = `${fixture.scratch}/Klasse-1/.wiki/seite-0.md`;
    await writeFiles(fixture.admin, [[added, '# Nachgereicht\n'], [changed, '# Anders\n\nNeuer Inhalt.\n']]);
    const before = await indexedFacts(fixture.es, 'schule');
    const result = await reindex(['--share', 'schule', '--dry-run', '--json', ...config()]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as JobInfo;
    assert.deepEqual([report.kind, report.dryRun, report.state, report.shares], ['reindex', true, 'finished', ['schule']]);
    assert.ok(report.added >= 1 && report.updated >= 1, `added ${report.added}, updated ${report.updated}`);
    assert.ok(report.seen >= FOLDERS * PAGES_PER_FOLDER, `seen ${report.seen}`);
    const after = await indexedFacts(fixture.es, 'schule');
    assert.equal(after.has(documentId(SERVER, 'schule', added)), false, 'the new page is still not indexed');
    const id = documentId(SERVER, 'schule', changed);
    assert.deepEqual(after.get(id), before.get(id), 'the changed page keeps its old document');
  });

  it('reindexes a share of 1,000 pages while every search and webhook post succeeds', async () => {
    const api = new WikiClient(fixture.service.url, fixture.env);
    const client = await AdminApi.asAdmin(fixture.service.url, fixture.env).register('platform-api');
    const statuses = { search: [] as number[], webhook: [] as number[] };
    let done = false;
    const load = async (kind: keyof typeof statuses, request: () => Promise<number>) => {
      while (!done) statuses[kind].push(await request());
    };
    const searching = load('search', async () => (await api.request('/wiki/search', { caller: { user: 'anna', groups: ['Lehrer'] }, body: { q: 'Elternabend' } })).status);
    const posting = load('webhook', async () => (await postWebhook(fixture.service.url, { key: client.api_key, userAgent: 'platform-api/1.0', body: '{"event":"test"}' })).status);
    let result: CliRun;
    try {
      result = await reindex(['--share', 'schule', '--json', ...config()]);
    } finally {
      done = true;
      await Promise.all([searching, posting]);
    }
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as JobInfo;
    assert.equal(report.state, 'finished');
    assert.deepEqual(report.errors, []);
    assert.ok(report.seen >= FOLDERS * PAGES_PER_FOLDER + 1, `seen ${report.seen}`);
    assert.equal(report.indexed, report.seen, 'every page written again');
    for (const kind of ['search', 'webhook'] as const) {
      assert.ok(statuses[kind].length >= 10, `${statuses[kind].length} ${kind} requests during the reindex`);
      assert.deepEqual([...new Set(statuses[kind])], [200], `${kind} answers`);
    }
    const indexed = await indexedFacts(fixture.es, 'schule');
    assert.ok(indexed.has(documentId(SERVER, 'schule', `${fixture.scratch}/Klasse-0/.wiki/nachgereicht.md`)));
  });

  it('--rebuild fills a new versioned index from every share and switches the alias at the end', async () => {
    const manager = new IndexManager({ client: fixture.es, alias: serviceIndex });
    const [before] = await manager.aliasTargets();
    const api = new WikiClient(fixture.service.url, fixture.env);
    const statuses: number[] = [];
    let done = false;
    const searching = (async () => {
      while (!done) statuses.push((await api.request('/wiki/search', { caller: { user: 'anna', groups: ['Lehrer'] }, body: { q: 'Elternabend' } })).status);
    })();
    let result: CliRun;
    try {
      result = await reindex(['--rebuild', '--json', ...config()]);
    } finally {
      done = true;
      await searching;
    }
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as JobInfo;
    assert.deepEqual([report.kind, report.state, report.shares], ['rebuild', 'finished', ['schule', 'verwaltung']]);
    assert.equal(report.rebuild?.from, before);
    assert.equal(report.rebuild?.to, `${serviceIndex}-v${manager.generationOf(before!)! + 1}`);
    assert.deepEqual(await manager.aliasTargets(), [report.rebuild!.to]);
    assert.equal(await fixture.es.indices.exists({ index: before! }), false, 'the old index is gone');
    assert.ok(report.rebuild!.documents >= FOLDERS * PAGES_PER_FOLDER, `${report.rebuild!.documents} documents`);
    assert.ok(statuses.length >= 5, `${statuses.length} searches during the rebuild`);
    assert.deepEqual([...new Set(statuses)], [200]);
    // The pass that follows a rebuild brings over what the post-write hook wrote to the old index meanwhile.
    await waitFor(async () => (await reconcilerStatus(fixture.service)).lastPass?.trigger === 'rebuild', 60_000);
  });

  it('stops on Ctrl-C: the service ends the job, what was indexed stays, and it keeps answering', async () => {
    const result = await reindex(['--share', 'schule', ...config()], (child) => {
      void waitFor(async () => ((await reconcilerStatus(fixture.service)).running?.seen ?? 0) >= 100, 30_000).then(() => child.kill('SIGINT'));
    });
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /stopping/);
    assert.match(result.stdout, /^reindex of schule stopped after [\d.]+ s; what was done until then stays/);
    const status = await reconcilerStatus(fixture.service);
    assert.equal(status.running, null);
    assert.equal(status.lastJob?.state, 'cancelled');
    assert.ok(status.lastJob!.seen < FOLDERS * PAGES_PER_FOLDER, `stopped early (seen ${status.lastJob!.seen})`);
    assert.equal((await fetch(`${fixture.service.url}/healthz`)).status, 200);
  });
});

/**
 * What the reconciler's integration tests share: SMB access as the DC administrator and as the indexer, the
 * admin channel of a running service, and the comparison of the index with the shares document by document.
 *
 * The expected index is worked out from the share as the indexer account sees it (every `.wiki/*.md` whose
 * security descriptor it may read), with the documented id, version token and ACL rules (src/wiki/document.ts,
 * src/wiki/acl.ts, unit-tested on their own): what indexing every page from scratch would give.
 */
import type { Pace } from '../../../src/pacing/pacer.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { parse } from 'yaml';
import type { Client, estypes } from '@elastic/elasticsearch';
import PQueue from 'p-queue';
import { adminSocketPath } from '../../../src/control-socket/protocol.js';
import { startJob } from '../../../src/control-socket/client.js';
import type { JobInfo, JobRequest } from '../../../src/indexing/reconciler/jobs.js';
import type { ReconcilerStatus } from '../../../src/indexing/reconciler/reconciler.js';
import { SmbClient, SmbError, type SmbShare } from '../../../src/smb/index.js';
import { deriveAcl } from '../../../src/wiki/acl.js';
import { documentId } from '../../../src/wiki/document-id.js';
import { versionToken } from '../../../src/wiki/version-token.js';
import { isWikiPage } from '../../../src/wiki/layout.js';
import { serviceIndex, startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { removeTree } from '../smb/testbed.js';
import { passAfter, reconcilerDetails } from '../wiki/wiki-service.js';
import { testSearchClient } from '../../support/es-indices.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

/** The server name the testbed's config.yml gives every share (smb.server). */
export const SERVER = '127.0.0.1';

/** `share` as `account`, logged on in the testbed's NTLM mode (test/support/smb-logons.ts). */
export const shareAs = testbedShare;

/** A service (passes only when asked: interval 1 h) and a scratch folder in `schule`; see scratchService(). */
export interface ScratchService {
  env: TestbedEnv;
  smb: SmbClient;
  /** `schule` as the DC administrator: changes behind the service's back. */
  admin: SmbShare;
  es: Client;
  service: RunningService;
  /** The scratch folder's name in the share root. */
  scratch: string;
  /** The relay the service reaches Elasticsearch through, when asked for (`relayElasticsearch`): its outage. */
  esRelay?: TcpProxy;
}

/**
 * Registers before/after hooks: the scratch folder is created (and `prepare` run) before the service starts and
 * its first pass ends; afterwards the folder is removed and a pass takes its pages out of the index again.
 * `watch: false` turns the change watch off, for tests of what a pass does with changes made behind its back.
 * `pace`: the service's `reconciler.pace` (default: the service's). `relayElasticsearch: true` has the service reach
 * Elasticsearch through a relay (`esRelay`) that the test can take down; it is brought back afterwards.
 */
export function scratchService(
  prefix: string,
  prepare: (fixture: ScratchService) => Promise<void> = async () => undefined,
  { watch = true, pace, relayElasticsearch = false }: { watch?: boolean; pace?: Pace; relayElasticsearch?: boolean } = {},
): ScratchService {
  const fixture = { scratch: `${prefix}-${randomBytes(4).toString('hex')}` } as ScratchService;
  before(async () => {
    fixture.env = await readTestbedEnv();
    fixture.smb = new SmbClient();
    fixture.admin = shareAs(fixture.smb, fixture.env, fixture.env.dc_admin, 'schule');
    fixture.es = testSearchClient(fixture.env.es.url);
    await fixture.admin.mkdir(fixture.scratch);
    await prepare(fixture);
    const relayed = relayElasticsearch ? await TcpProxy.inFrontOf(fixture.env.es.url) : undefined;
    fixture.esRelay = relayed?.relay;
    const started = Date.now();
    fixture.service = await startService({
      reconciler: { interval: '1h', watch, ...(pace === undefined ? {} : { pace }) },
      ...(relayed === undefined ? {} : { elasticsearch: { url: relayed.url } }),
    });
    await passAfter(fixture.service, started);
  });
  after(async () => {
    try {
      await fixture.esRelay?.up();
      await removeTree(fixture.admin, fixture.scratch);
      if (fixture.service) await runJob(fixture.service, { kind: 'pass' });
    } finally {
      await fixture.service?.stop();
      await fixture.esRelay?.down();
      await fixture.smb?.close();
      await fixture.es?.close();
    }
  });
  return fixture;
}

/** The admin channel socket of a service started by test/support/service.ts. */
export function socketOf(service: RunningService): string {
  const config = parse(readFileSync(service.configFile, 'utf8')) as { storage: { data_dir: string } };
  return adminSocketPath(config.storage.data_dir);
}

/** The reconciler's status, as the operator sees it in its /healthz details. */
export async function reconcilerStatus(service: RunningService): Promise<ReconcilerStatus> {
  return (await reconcilerDetails(service)) as unknown as ReconcilerStatus;
}

/** Runs a job in the service and returns its final report. */
export async function runJob(service: RunningService, request: JobRequest): Promise<JobInfo> {
  const job = await startJob(socketOf(service), request);
  return job.finished;
}

/** Writes files (creating their folders) with a few requests in flight. */
export async function writeFiles(share: SmbShare, files: Iterable<[string, string]>, concurrency = 16): Promise<void> {
  const list = [...files];
  for (const dir of new Set(list.map(([path]) => path.slice(0, path.lastIndexOf('/'))))) await share.mkdir(dir, { recursive: true });
  const queue = new PQueue({ concurrency });
  await Promise.all(list.map(([path, content]) => queue.add(() => share.writeFile(path, content))));
}

/** What the tests compare of each document. */
export interface DocumentFacts {
  path: string;
  version: string;
  acl_allow: string[];
  acl_deny: string[];
}

/** Every document of `share` in the index the services of this process write (serviceIndex), by id. */
export async function indexedFacts(es: Client, share: string): Promise<Map<string, DocumentFacts>> {
  await es.indices.refresh({ index: serviceIndex });
  const facts = new Map<string, DocumentFacts>();
  let after: estypes.SortResults | undefined;
  for (;;) {
    const response = await es.search<DocumentFacts>({
      index: serviceIndex,
      size: 5000,
      _source: ['path', 'version', 'acl_allow', 'acl_deny'],
      query: { term: { share } },
      sort: [{ path: 'asc' }],
      ...(after === undefined ? {} : { search_after: after }),
    });
    for (const hit of response.hits.hits) {
      const { path, version, acl_allow, acl_deny } = hit._source!;
      facts.set(hit._id!, { path, version, acl_allow, acl_deny });
    }
    if (response.hits.hits.length < 5000) return facts;
    after = response.hits.hits.at(-1)!.sort;
  }
}

/**
 * How many documents of the share the index has below the folder `root`, as of the index's last refresh (the
 * service refreshes every second): for a wait to poll, where indexedFacts would force a refresh and fetch every
 * document of the share each time.
 */
export async function indexedCount(es: Client, share: string, root: string): Promise<number> {
  const { count } = await es.count({ index: serviceIndex, query: { bool: { filter: [{ term: { share } }, { prefix: { path: `${root}/` } }] } } });
  return count;
}

/** Every page of the share (below `root`) the indexer may read, as its document would be, by id. */
export async function expectedFacts(indexer: SmbShare, share: string, root = ''): Promise<Map<string, DocumentFacts>> {
  const facts = new Map<string, DocumentFacts>();
  const queue = new PQueue({ concurrency: 16 });
  const reads: Promise<void>[] = [];
  for await (const entry of indexer.walk(root, { include: (e) => !e.isDirectory && isWikiPage(e.path) })) {
    reads.push(
      queue.add(async () => {
        try {
          const acl = deriveAcl(await indexer.getSecurity(entry.path));
          facts.set(documentId(SERVER, share, entry.path), {
            path: entry.path,
            version: versionToken(entry.size, entry.mtime, acl),
            acl_allow: acl.allow,
            acl_deny: acl.deny,
          });
        } catch (error) {
          // Unreadable for the indexer: such a page must not be in the index.
          if (!(error instanceof SmbError && error.code === 'ACCESS_DENIED')) throw error;
        }
      }),
    );
  }
  await Promise.all(reads);
  return facts;
}

/** Asserts that the index holds exactly the expected documents (ids, paths, versions, ACLs). */
export function assertSameDocuments(actual: Map<string, DocumentFacts>, expected: Map<string, DocumentFacts>, label: string): void {
  const byPath = (facts: Map<string, DocumentFacts>) => [...facts.entries()].map(([id, f]) => ({ id, ...f })).sort((a, b) => (a.path < b.path ? -1 : 1));
  const missing = [...expected.keys()].filter((id) => !actual.has(id)).map((id) => expected.get(id)!.path);
  const extra = [...actual.keys()].filter((id) => !expected.has(id)).map((id) => actual.get(id)!.path);
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${label}: documents missing from / extra in the index`);
  assert.deepEqual(byPath(actual), byPath(expected), `${label}: documents differ`);
}

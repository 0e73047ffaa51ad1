/**
 * A thread of the render bench (render-cost.ts): renders the seed's pages as the indexer pool does (Markdown to a
 * document, the document to its `_bulk` source line) with the build and the V8 limits it was started with, and
 * answers the thread's CPU per page. The pages are generated here, so that only their rendering is timed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SecurityDescriptor } from '../../src/smb/index.js';
import { deriveAcl } from '../../src/wiki/acl.js';
import { markdownPage } from '../../test/integration/reconcile/markdown.js';
import { pageSize } from './seed.js';

export interface RenderWork {
  /** file: URLs of the build's src/wiki/document.js and src/indexing/indexer/bulk.js. */
  documentModule: string;
  bulkModule: string;
  pages: number;
  /** Passes over the pages that are timed, after one that is not (the code's warm-up). */
  passes: number;
}

type Render = (content: Uint8Array, path: string) => string;

/** A read ACL of a few groups, as a seeded page has. */
const SECURITY: SecurityDescriptor = {
  revision: 1,
  control: 0x8004,
  owner: null,
  group: null,
  dacl: { revision: 2, aces: [1101, 1102, 1103].map((rid) => ({ type: 0, flags: 0, mask: 0x1200a9, sid: `S-1-5-21-1-2-3-${rid}` })) },
  sacl: null,
};

async function renderer(work: RenderWork): Promise<Render> {
  const { buildWikiDocument } = await import(work.documentModule) as typeof import('../../src/wiki/document.js');
  const { documentSource } = await import(work.bulkModule) as typeof import('../../src/indexing/indexer/bulk.js');
  const modified = new Date('2026-11-01T08:00:00Z');
  const acl = deriveAcl(SECURITY);
  return (content, path) => {
    // A build before the pages' facts carried their read ACL takes the descriptor itself: both are given.
    const source = { server: 'dc1', share: 'schule', path, content, size: content.length, modified, acl, securityDescriptor: SECURITY };
    return JSON.stringify(documentSource(buildWikiDocument(source)));
  };
}

const work = workerData as RenderWork;
const render = await renderer(work);
const utf8 = new TextEncoder();
const pages = Array.from({ length: work.pages }, (_, n) => ({ content: utf8.encode(markdownPage(n, pageSize(n))), path: `Klasse-${n}/.wiki/seite-${n}.md` }));
const pass = () => {
  for (const { content, path } of pages) render(content, path);
};
pass();
const before = process.threadCpuUsage();
for (let i = 0; i < work.passes; i++) pass();
const spent = process.threadCpuUsage(before);
parentPort!.postMessage((spent.user + spent.system) / (work.passes * work.pages));

// A pool task and its result are paired by the types (src/runtime/pool-protocol.ts): the owner gets the result of the
// kind it sent, and a task module answers each kind with that kind's result. Each `@ts-expect-error` below fails
// `npm run build` when the line under it compiles, so this file is the test; it is compiled and never run.
import type { FolderListing, PageOutcome } from '../../../src/indexing/listing.js';
import type { SmbReaderTasks } from '../../../actors/smb-reader/protocol.js';
import { servePoolTasks } from '../../../src/runtime/pool-protocol.js';
import type { WorkerPool } from '../../../src/runtime/worker-pool.js';

declare const readers: WorkerPool<SmbReaderTasks>;
declare const listing: FolderListing;
declare const outcome: PageOutcome;
const page = { server: 'fs1', share: 'wiki', path: 'a.md' };

const typeChecks = [
  // The owner's side: a task's answer has its kind's type.
  async () => {
    const folders: FolderListing[] = await readers.run({ type: 'list-wiki-folders', server: 'fs1', share: 'wiki', paths: [''] });
    const read: PageOutcome = await readers.run({ type: 'read-page', page });
    void folders; void read;
    // @ts-expect-error a page read answers a PageOutcome, not a folder's listing
    const wrong: FolderListing = await readers.run({ type: 'read-page', page });
    void wrong;
    // @ts-expect-error a task of a kind the pool does not serve
    void readers.run({ type: 'render-page', page });
    // @ts-expect-error a task without its kind's fields
    void readers.run({ type: 'list-names', server: 'fs1' });
  },
  // The task module's side: each kind answers its own result, and every kind is served.
  () => servePoolTasks<SmbReaderTasks>({
    'ping': () => ({ threadId: 1 }),
    'list-wiki-folders': async () => [listing],
    // @ts-expect-error a folder's listing is no answer to a page read
    'read-page': async () => listing,
    'read-changed-page': async () => outcome,
    'list-names': async () => ({ state: 'listed', names: [] }),
  }),
  // @ts-expect-error list-names is not served
  () => servePoolTasks<SmbReaderTasks>({
    'ping': () => ({ threadId: 1 }),
    'list-wiki-folders': async () => [listing],
    'read-page': async () => outcome,
    'read-changed-page': async () => outcome,
  }),
];
void typeChecks;

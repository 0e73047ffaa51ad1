/**
 * The heap a thread's modules hold, without starting the service:
 *   node --expose-gc dist/bench/memory/module-heaps.js
 * For each thread of the index pipeline (the reconciler actor, the smb-reader and indexer pool threads) it reads from
 * the source which modules and packages the thread's entry module loads (test/support/import-rule.ts, loadedFrom),
 * imports them all (not the entry, which would start the thread's work) in a fresh worker, collects garbage and
 * prints the worker's V8 heap in use, beside that of an empty worker and whether markdown-it is among them.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { loadedFrom } from '../../test/support/import-rule.js';
import { mebibytes } from '../stats.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DIST = new URL('../../', import.meta.url);

const THREADS = { 'reconciler': 'actors/reconciler/main.ts', 'smb-reader': 'actors/smb-reader/task.ts', 'indexer': 'actors/indexer/task.ts' };

/** Imports `modules` (dist URLs) in a fresh worker; its heap in use after a full collection, in bytes. */
async function heapWith(modules: string[]): Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { getHeapStatistics } = require('node:v8');
    (async () => {
      for (const url of workerData) await import(url);
      for (let i = 0; i < 3; i++) globalThis.gc();
      parentPort.postMessage(getHeapStatistics().used_heap_size);
    })();`;
  const worker = new Worker(code, { eval: true, workerData: modules });
  const used = await new Promise<number>((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  await worker.terminate();
  return used;
}

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
console.log(`empty worker: ${mebibytes(await heapWith([]))} MiB heap used`);
for (const [thread, entry] of Object.entries(THREADS)) {
  const { modules, packages } = loadedFrom(REPO, entry);
  const urls = modules.filter((m) => m !== entry).map((m) => new URL(m.replace(/\.ts$/, '.js'), DIST).href);
  const heap = await heapWith(urls);
  console.log(`${thread}: ${mebibytes(heap)} MiB heap used with its ${modules.length} modules; markdown-it: ${packages.has('markdown-it') ? `loaded (${packages.get('markdown-it')!.join(' → ')})` : 'not loaded'}`);
}

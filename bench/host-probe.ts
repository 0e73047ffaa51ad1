/**
 * The host's own speed, for a bench that runs long enough for it to change (the scale bench's sizes take most of an
 * hour on a virtual machine whose neighbours come and go): the CPU time of a fixed piece of the service's own work on
 * this thread, the documents of the same 2,000 pages built (Markdown rendered, text extracted, ids hashed). The same
 * probe costing more CPU later says the host ran slower then, not that the service's work grew.
 */
import { buildWikiDocument } from '../src/wiki/document.js';
import { markdownPage } from '../test/integration/reconcile/markdown.js';
import { NO_DACL } from '../test/integration/search/scratch-index.js';
import { pageSize } from './index/seed.js';
import { percentile } from './stats.js';

const PAGES = 2_000;
/** Rounds measured, after one that warms the compiler up; the median is the probe's value. */
const ROUNDS = 5;

const pages = Array.from({ length: PAGES }, (_, n) => markdownPage(n, pageSize(n)));

function buildAll(): void {
  for (const [n, content] of pages.entries()) {
    buildWikiDocument({ server: 'probe', share: 'probe', path: `Klasse/.wiki/seite-${n}.md`, content, size: content.length, modified: new Date(0), acl: NO_DACL });
  }
}

/** CPU milliseconds this thread spends building the probe's documents once (the median of ROUNDS). */
export function hostProbeMs(): number {
  buildAll();
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    buildAll();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / 1000);
  }
  return percentile(rounds.sort((a, b) => a - b), 0.5);
}

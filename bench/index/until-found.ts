/**
 * Change → searchable, the timing both index benchmarks of it share (save-to-search.ts over WebDAV,
 * smb-write-to-search.ts over SMB): a few writers (as a staff room) each change their own page again and again with
 * a new word, and after each change poll `POST /wiki/search` as the teacher until it finds the word; the time runs
 * from the start of the change. The time until the change was made (its request answered) is taken too, and with
 * `indexed`, the time until Elasticsearch holds the change (a realtime GET, which needs no refresh): the stages
 * before the index, before the refresh and before the search.
 */
import { randomBytes } from 'node:crypto';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { WikiClient, type Caller } from '../../test/integration/wiki/wiki-service.js';
import { percentile } from '../stats.js';

/** Between two searches for the same word. */
const POLL_MS = 20;
/** A change not visible by then counts as lost. */
const GIVE_UP_MS = 30_000;

export const TEACHER: Caller = { user: 'anna', groups: ['Lehrer'] };

export interface ChangeToSearch {
  changes: number;
  lost: number;
  p50: number;
  p99: number;
  max: number;
  /** Until the change was made: `change` returned. */
  made: { p50: number; p99: number };
  /** Until Elasticsearch held the change, when `indexed` was given. */
  indexed?: { p50: number; p99: number };
  /** The polling searches' own round trips, and how many there were. */
  polls: { p50: number; p99: number; count: number };
}

export interface UntilFoundOptions {
  writers: number;
  /** Changes in all, shared among the writers. */
  changes: number;
  /** Writer `writer` changes its page so that it holds `word` (and no earlier word). */
  change(writer: number, word: string): Promise<void>;
  /** Whether Elasticsearch holds writer `writer`'s page with `word` yet (realtime GET). */
  indexed?(writer: number, word: string): Promise<boolean>;
}

export async function timeUntilFound(serviceUrl: string, env: TestbedEnv, options: UntilFoundOptions): Promise<ChangeToSearch> {
  const wiki = new WikiClient(serviceUrl, env);
  const latencies: number[] = [];
  const madeAfter: number[] = [];
  const indexedAfter: number[] = [];
  const polls: number[] = [];
  let lost = 0;
  const writer = async (n: number, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const word = `sichtbar${randomBytes(6).toString('hex')}`;
      const started = performance.now();
      await options.change(n, word);
      madeAfter.push(performance.now() - started);
      let indexed = options.indexed === undefined;
      for (;;) {
        if (!indexed && (indexed = await options.indexed!(n, word))) indexedAfter.push(performance.now() - started);
        const asked = performance.now();
        const found = await wiki.search(TEACHER, { q: word, size: 1 });
        polls.push(performance.now() - asked);
        if (found.total > 0) {
          latencies.push(performance.now() - started);
          // Held between the GET and the search: it was held by the time it was found.
          if (!indexed) indexedAfter.push(latencies.at(-1)!);
          break;
        }
        if (performance.now() - started > GIVE_UP_MS) {
          lost++;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, n) => writer(n, Math.ceil(options.changes / options.writers))));
  latencies.sort((a, b) => a - b);
  madeAfter.sort((a, b) => a - b);
  indexedAfter.sort((a, b) => a - b);
  polls.sort((a, b) => a - b);
  return {
    changes: latencies.length + lost,
    lost,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies.at(-1) ?? NaN,
    made: { p50: percentile(madeAfter, 0.5), p99: percentile(madeAfter, 0.99) },
    polls: { p50: percentile(polls, 0.5), p99: percentile(polls, 0.99), count: polls.length },
    ...(options.indexed === undefined ? {} : { indexed: { p50: percentile(indexedAfter, 0.5), p99: percentile(indexedAfter, 0.99) } }),
  };
}

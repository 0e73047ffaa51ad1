/**
 * Save → searchable: a teacher saves a wiki page over WebDAV, and the time until `POST /wiki/search` finds its new
 * word is taken, from the moment the PUT is sent. A few writers save at once (as a staff room does); each saves
 * its own page again and again with a new word, and polls the search after each save.
 * What bounds it: the post-write hook's flush interval (the writer sends a batch at the latest 500 ms after its
 * first operation) plus Elasticsearch's refresh interval (1 s: a written document is searchable after the next
 * refresh), plus the page's read and render.
 */
import { randomBytes } from 'node:crypto';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { account, DavClient } from '../../test/integration/webdav/dav-client.js';
import { WikiClient, type Caller } from '../../test/integration/wiki/wiki-service.js';
import { percentile } from '../stats.js';

const WRITERS = 4;
/** Between two searches for the same word. */
const POLL_MS = 20;
/** A save not visible by then counts as lost. */
const GIVE_UP_MS = 30_000;

export interface SaveToSearch {
  saves: number;
  lost: number;
  p50: number;
  p99: number;
  max: number;
}

export async function saveToSearch(service: RunningService, env: TestbedEnv, saves: number): Promise<SaveToSearch> {
  const teacher: Caller = { user: 'anna', groups: ['Lehrer'] };
  const dav = new DavClient(service, account(env, teacher.user));
  const wiki = new WikiClient(service.url, env);
  const dir = `zz-savebench-${randomBytes(4).toString('hex')}`;
  const latencies: number[] = [];
  let lost = 0;
  const writer = async (n: number, count: number): Promise<void> => {
    const page = `${dir}/.wiki/seite-${n}.md`;
    for (let i = 0; i < count; i++) {
      const word = `sichtbar${randomBytes(6).toString('hex')}`;
      const sent = performance.now();
      const put = await dav.put(page, `# Seite ${n}\n\nNeu gespeichert: ${word}\n`);
      if (put.status !== 201 && put.status !== 204) throw new Error(`PUT ${page}: ${put.status} ${await put.text()}`);
      for (;;) {
        const found = await wiki.search(teacher, { q: word, size: 1 });
        if (found.total > 0) {
          latencies.push(performance.now() - sent);
          break;
        }
        if (performance.now() - sent > GIVE_UP_MS) {
          lost++;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  };
  try {
    for (const folder of [dir, `${dir}/.wiki`]) {
      const status = await dav.mkcol(folder);
      if (status !== 201) throw new Error(`MKCOL ${folder}: ${status}`);
    }
    await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n, Math.ceil(saves / WRITERS))));
  } finally {
    await dav.remove(dir);
  }
  latencies.sort((a, b) => a - b);
  return { saves: latencies.length + lost, lost, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? NaN };
}

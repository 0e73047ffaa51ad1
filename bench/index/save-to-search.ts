/**
 * Save → searchable: a teacher saves a wiki page over WebDAV, and the time until `POST /wiki/search` finds its new
 * word is taken, from the moment the PUT is sent (until-found.ts: 4 writers, each its own page).
 * What bounds it: the page's read and render, the post-write hook's batch (a group commit: 20 ms to gather when no
 * batch is on its way, else until the one on its way is answered) and the refresh the service asks for after it (at
 * most every half refresh interval: 500 ms by default), plus the polling search itself.
 */
import { randomBytes } from 'node:crypto';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { account, DavClient } from '../../test/integration/webdav/dav-client.js';
import { TEACHER, timeUntilFound, type ChangeToSearch } from './until-found.js';

const WRITERS = 4;

export async function saveToSearch(service: RunningService, env: TestbedEnv, saves: number): Promise<ChangeToSearch> {
  const dav = new DavClient(service, account(env, TEACHER.user));
  const dir = `zz-savebench-${randomBytes(4).toString('hex')}`;
  try {
    for (const folder of [dir, `${dir}/.wiki`]) {
      const status = await dav.mkcol(folder);
      if (status !== 201) throw new Error(`MKCOL ${folder}: ${status}`);
    }
    return await timeUntilFound(service.url, env, {
      writers: WRITERS,
      changes: saves,
      change: async (n, word) => {
        const page = `${dir}/.wiki/seite-${n}.md`;
        const put = await dav.put(page, `# Seite ${n}\n\nNeu gespeichert: ${word}\n`);
        if (put.status !== 201 && put.status !== 204) throw new Error(`PUT ${page}: ${put.status} ${await put.text()}`);
      },
    });
  } finally {
    await dav.remove(dir);
  }
}

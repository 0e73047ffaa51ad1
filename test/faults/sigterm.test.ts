// Fault: SIGTERM under load. The service drains: requests in flight finish (among them a PUT whose body is still
// arriving when the signal comes), new ones are refused (503 shutting_down or no connection), it exits 0, and no
// page on the share is torn: each holds one complete version that was sent for it (WebDAV PUT writes a temporary
// file and renames it), and no temporary upload file is left behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { startService, type RunningService } from '../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';
import { shareAs } from '../integration/reconcile/support.js';
import { removeTree } from '../integration/smb/testbed.js';
import { createScratchWiki, describeOutcomes, MixedLoad, pageContent, pagePath, ServiceCalls, type Outcome } from './support/load.js';

const PAGES = 6;
/** The service's own pattern for temporary upload files (src/webdav/storage.ts). */
const TEMP_FILE = /^\..+\.~[0-9a-f]{12}\.tmp$/;

/** How long a request may take to reach the server on a busy host. */
const IN_TRANSIT_MS = 1_000;

/** What a request may get once the service is shutting down. */
function refused(o: Outcome): boolean {
  return o.status === 0 || (o.status === 503 && (o.json as { error?: string }).error === 'shutting_down');
}

describe('SIGTERM under load', () => {
  const scratch = `_fault-term-${randomBytes(4).toString('hex')}`;
  let env: TestbedEnv;
  let smb: SmbClient;
  let admin: SmbShare;
  let service: RunningService;
  before(async () => {
    env = await readTestbedEnv();
    smb = new SmbClient();
    admin = shareAs(smb, env, env.dc_admin, 'schule');
    await admin.mkdir(scratch);
    service = await startService({ reconciler: { interval: '1h' } });
  });
  after(async () => {
    try {
      await service?.stop();
      await removeTree(admin, scratch);
    } finally {
      await smb?.close();
    }
  });

  it('finishes what is in flight, refuses the rest, exits 0 and leaves no torn page', async () => {
    const calls = ServiceCalls.as(service.url, env);
    await createScratchWiki(calls, scratch, PAGES);
    const slowPage = pagePath(scratch, PAGES);
    const slowBody = pageContent(slowPage, 1).repeat(40);
    let sendRest!: () => void;
    const rest = new Promise<string>((resolve) => { sendRest = () => resolve(slowBody.slice(1000)); });
    const load = new MixedLoad(calls, scratch, PAGES);
    let slow: Promise<Outcome> | undefined;
    let signalled = 0;
    let exitCode: number | null;
    try {
      await load.until(0, 9);
      slow = calls.putInTwoParts(slowPage, slowBody.slice(0, 1000), rest);
      await new Promise((resolve) => setTimeout(resolve, 300));
      signalled = Date.now();
      const exited = service.stop(30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      sendRest();
      exitCode = await exited;
    } finally {
      sendRest();
      await load.stop();
    }
    assert.equal(exitCode, 0);
    const slowOutcome = await slow;
    assert.equal(slowOutcome.status, 201, `the PUT in flight at SIGTERM: ${describeOutcomes([slowOutcome])}`);
    // A request sent shortly before the signal may still be on its way to the server and be refused; one sent
    // well before it was in flight and must have been served.
    const bad = load.outcomes.filter((o) => !((o.status >= 200 && o.status < 300) || (o.startedAt >= signalled - IN_TRANSIT_MS && refused(o))));
    assert.deepEqual(bad, [], `requests failed:\n${describeOutcomes(bad)}`);
    assert.ok(load.since(signalled).some(refused), 'requests after SIGTERM were refused');
    await assert.rejects(fetch(`${service.url}/healthz`), 'nothing listens any more');

    const names = (await admin.readdir(`${scratch}/.wiki`)).map((e) => e.name);
    assert.deepEqual(names.filter((name) => TEMP_FILE.test(name)), [], 'no temporary upload file is left');
    for (let n = 0; n < PAGES; n++) {
      const page = pagePath(scratch, n);
      const content = (await admin.readFile(page)).toString('utf8');
      assert.ok(load.sent.get(page)!.includes(content), `${page} holds one complete version (${content.length} bytes: ${content.slice(0, 40)}…)`);
    }
    assert.equal((await admin.readFile(slowPage)).toString('utf8'), slowBody);
  });
});

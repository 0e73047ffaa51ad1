// Fault: the service killed (SIGKILL) during a flood of PROPPATCH requests. The dead-property log may then end in
// a torn line; the service starts again and every PROPPATCH it had acknowledged is there. The same holds for a log
// whose last line was cut by hand and saved by an editor (which ends the file with a newline).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SmbClient } from '../../src/smb/index.js';
import { runService, startService, type RunningService } from '../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';
import { removeTree, shareFor } from '../integration/smb/testbed.js';
import { account, DavClient } from '../integration/webdav/dav-client.js';
import { FILEPROXY_CLI } from '../support/cli-path.js';

/** Requests in flight at once, each on a file of its own. */
const WRITERS = 8;
/** Properties each writer sets, one PROPPATCH each (under webdav.dead_properties.max_per_resource). */
const PER_WRITER = 90;
/** How long the flood runs before the kill. */
const FLOOD_MS = 1_500;

const setBody = (name: string) =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:s="urn:schule"><D:set><D:prop><s:${name}>${name}</s:${name}></D:prop></D:set></D:propertyupdate>`;
const ALLPROP = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>';

describe('the service killed (SIGKILL) during a PROPPATCH flood', () => {
  const dir = `_fault-propkill-${randomBytes(4).toString('hex')}`;
  let env: TestbedEnv;
  let service: RunningService;
  /** Properties each PROPPATCH of which was answered 207, by file. */
  const acknowledged = new Map<string, string[]>();

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({ smb: { shares: [{ name: 'schule' }] }, reconciler: { interval: '1h' } });
    const anna = new DavClient(service, account(env, 'anna'));
    assert.equal(await anna.mkcol(dir), 201);
    for (let w = 0; w < WRITERS; w++) assert.equal((await anna.put(`${dir}/f${w}.md`, 'x')).status, 201);
  });
  after(async () => {
    // Over SMB, not WebDAV: the service may not have come back.
    const smb = new SmbClient();
    try {
      await service?.stop();
      await removeTree(shareFor(smb, env.admin), dir);
    } finally {
      await smb.close();
    }
  });

  /** SIGKILL, then the same config (and data directory) started again. */
  async function killAndRestart(beforeStart: (dataDir: string) => void = () => undefined): Promise<void> {
    const killed = service;
    const exited = once(killed.process, 'exit');
    killed.process.kill('SIGKILL');
    await exited;
    beforeStart(dirname(killed.configFile));
    service = await runService([process.execPath, FILEPROXY_CLI, 'serve', '--config', killed.configFile], {
      configFile: killed.configFile, port: Number(new URL(killed.url).port),
    });
  }

  /** Each acknowledged property, read back with PROPFIND. */
  async function assertAcknowledgedKept(): Promise<void> {
    const anna = new DavClient(service, account(env, 'anna'));
    for (const [file, names] of acknowledged) {
      const res = await anna.request('PROPFIND', file, { headers: { depth: '0' }, body: ALLPROP });
      assert.equal(res.status, 207);
      const text = await res.text();
      const missing = names.filter((name) => !text.includes(`<${name} `) && !text.includes(`:${name}>`) && !text.includes(`<${name}>`));
      assert.deepEqual(missing, [], `acknowledged properties of ${file} missing after the restart`);
    }
  }

  it('keeps every acknowledged PROPPATCH', async () => {
    const anna = new DavClient(service, account(env, 'anna'));
    let flooding = true;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      const file = `${dir}/f${w}.md`;
      const names: string[] = [];
      acknowledged.set(file, names);
      for (let i = 0; flooding && i < PER_WRITER; i++) {
        const name = `p${w}x${i}`;
        try {
          const res = await anna.request('PROPPATCH', file, { body: setBody(name) });
          await res.arrayBuffer();
          if (res.status === 207) names.push(name);
        } catch {
          return; // the connection died with the service
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, FLOOD_MS));
    await killAndRestart();
    flooding = false;
    await Promise.all(writers);
    const count = [...acknowledged.values()].reduce((n, names) => n + names.length, 0);
    console.log(`${count} PROPPATCH acknowledged before the kill`);
    assert.ok(count > WRITERS, 'the flood was under way');
    await assertAcknowledgedKept();
  });

  it('starts on a log whose last line was cut by hand, and keeps every whole record', async () => {
    // A line the service never acknowledged, cut mid-way and ended with a newline, as an editor saves it.
    let log = '';
    await killAndRestart((dataDir) => {
      log = join(dataDir, 'dav-properties.log');
      const line = `{"share":"schule","path":"${dir}/f0.md","properties":[{"ns":"urn:schule","name":"torn","attrs":[],"children":["to`;
      appendFileSync(log, `${line}\n`);
    });
    await assertAcknowledgedKept();
    assert.ok(!readFileSync(log, 'utf8').includes('"torn"'), 'the torn line is cut off the log');
    // And a log cut in the middle of a record (the file itself truncated), then ended with a newline.
    await killAndRestart(() => {
      const text = readFileSync(log, 'utf8');
      writeFileSync(log, `${text.slice(0, text.length - 20)}\n`);
    });
    const res = await new DavClient(service, account(env, 'anna')).request('PROPFIND', `${dir}/f0.md`, { headers: { depth: '0' }, body: ALLPROP });
    assert.equal(res.status, 207);
  });
});

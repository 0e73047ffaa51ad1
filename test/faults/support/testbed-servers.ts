/**
 * Killing the testbed's servers for a fault test, and bringing them back. Only processes the testbed recorded are
 * touched: Elasticsearch by the pid file its launcher wrote, Samba's smbd by the pid file Samba writes into the
 * testbed's pid directory, each checked to be the process it claims to be (pids get reused).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SmbClient } from '../../../src/smb/index.js';
import { shareAs } from '../../integration/reconcile/support.js';
import { runningElasticsearch } from '../../testbed/elasticsearch.js';
import { readTestbedEnv } from '../../testbed/env.js';
import { layout } from '../../testbed/layout.js';
import { upAgain } from '../../testbed/up-options.js';
import { isAlive, processInfo, readPidFile, waitUntil } from '../../testbed/processes.js';
import { runningSamba, sambaPortsAnswer } from '../../testbed/samba.js';

const run = promisify(execFile);
const TESTBED_CLI = fileURLToPath(new URL('../../testbed/cli.js', import.meta.url));

async function killAndWait(pid: number, what: string): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await waitUntil(`${what} (pid ${pid}) to die`, async () => !isAlive(pid), 10_000);
}

/** SIGKILL to the testbed's Elasticsearch; returns once the process is gone. */
export async function killElasticsearch(): Promise<void> {
  const pid = await runningElasticsearch();
  if (pid === undefined) throw new Error('the testbed runs no Elasticsearch');
  await killAndWait(pid, 'Elasticsearch');
}

/**
 * The DC's SMB server: the `smbd` that the `samba` master runs as its s3fs task (`smbd --foreground`, which forks
 * one child per client connection). Samba records its pid in the testbed's pid directory.
 */
async function runningSmbd(): Promise<number> {
  if ((await runningSamba()) === undefined) throw new Error('the testbed runs no Samba');
  const pid = await readPidFile(join(layout.samba.pidDir, 'smbd.pid'));
  const info = pid === undefined ? undefined : await processInfo(pid);
  if (!info || info.comm !== 'smbd' || !info.cmdline.includes(layout.samba.conf)) {
    throw new Error(`smbd.pid in ${layout.samba.pidDir} names no smbd of this testbed (pid ${pid})`);
  }
  return info.pid;
}

/**
 * SIGKILL to the DC's smbd. Samba 4.17 treats the end of its s3fs task as fatal ("smbd child process exited",
 * samba_terminate): the whole DC stops, LDAPS included, as a real DC would after this fault. Returns once SMB
 * no longer answers.
 */
export async function killSmbd(): Promise<void> {
  await killAndWait(await runningSmbd(), 'smbd');
  await waitUntil('SMB to stop answering', async () => !(await sambaPortsAnswer()), 30_000);
}

/** `testbed up` (idempotent: starts what is down) and waits until every server answers. */
export async function restoreTestbed(): Promise<void> {
  const env = await readTestbedEnv();
  await run(process.execPath, [TESTBED_CLI, ...upAgain(env)], { maxBuffer: 16 * 1024 * 1024 });
  // A restarted DC opens its ports before it can log anyone on (SESSION_SETUP answers INTERNAL_ERROR for a
  // moment): wait until an SMB logon works, so that what a test checks next is the service, not the DC's start.
  await waitUntil('the DC to log on over SMB', async () => {
    const client = new SmbClient();
    try {
      return await shareAs(client, env, env.dc_admin, 'schule').readdir('').then(() => true, () => false);
    } finally {
      await client.close();
    }
  }, 60_000);
}

/** Registers an `after` hook that brings the testbed back whatever the test did, so later test files find it whole. */
export function restoreTestbedAfter(): void {
  after(restoreTestbed);
}

// The supervisor against the real service build: actors start, report, get
// restarted after a crash, and everything stops cleanly on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Supervisor } from '../../supervisor/supervisor.js';
import { loadConfig, readIndexerPassword } from '../../src/config/index.js';
import type { HealthReport } from '../../src/runtime/health.js';
import { FILEPROXY_CLI } from '../support/cli-path.js';
import { crashActor } from '../support/fault-drills.js';
import { startService, waitFor, writeServiceConfig, type RunningService } from '../support/service.js';

const ACTORS = ['http-front', 'dedupe', 'webhook-store', 'ldap-resolver', 'reconciler', 'dav-state', 'smb-reader', 'indexer'];

async function health(url: string): Promise<HealthReport> {
  return (await (await fetch(`${url}/healthz`)).json()) as HealthReport;
}

describe('fileproxy serve', () => {
  let service: RunningService;
  before(async () => { service = await startService(); });
  after(async () => { await service.stop(); });

  it('/healthz lists every actor and pool as running', async () => {
    const res = await fetch(`${service.url}/healthz`);
    assert.equal(res.status, 200);
    const report = (await res.json()) as HealthReport;
    assert.equal(report.status, 'ok');
    assert.deepEqual(Object.keys(report.actors).sort(), [...ACTORS].sort());
    for (const name of ACTORS) assert.equal(report.actors[name]!.state, 'running', name);
    // The reconciler's two pools, each with the threads it may start (workers.smb_readers, workers.indexers; the testbed's defaults).
    for (const [pool, maxThreads] of [['smb-reader', 2], ['indexer', 2]] as const) {
      assert.equal(report.actors[pool]!.kind, 'pool', pool);
      assert.equal(report.actors[pool]!.details?.['maxThreads'], maxThreads, pool);
      assert.equal(typeof report.actors[pool]!.details?.['queued'], 'number', pool);
    }
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await fetch(`${service.url}/no/such/thing`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { status: 'error', error: 'not_found', message: 'no endpoint at /no/such/thing' });
  });

  it('exits 0 on SIGTERM and stops listening', async () => {
    assert.equal(await service.stop(), 0);
    await assert.rejects(fetch(`${service.url}/healthz`));
  });

  it('exits 0 at once on a SIGTERM that comes while its actors start', async () => {
    const { file } = await writeServiceConfig();
    const child = spawn(process.execPath, [FILEPROXY_CLI, 'serve', '--config', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    try {
      // The first actor's `actor ready`: the others are (most likely) still starting, some about to say ready.
      let output = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => { if ((output += d.toString()).includes('"actor ready"')) resolve(); });
        void exited.then(() => reject(new Error(`the service exited before any actor was ready:\n${output}`)));
      });
      child.kill('SIGTERM');
      const started = Date.now();
      // Before, it waited for the startup timeout (30 s) and exited 1, or for ever when an actor said ready after
      // it was asked to stop.
      const [code, signal] = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit within 15 s of the SIGTERM')), 15_000))]);
      assert.deepEqual({ code, signal }, { code: 0, signal: null });
      console.log(`stopped during its start: exited ${Date.now() - started} ms after the SIGTERM`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

describe('supervisor restarts', () => {
  async function startSupervisor(maxRestarts: number) {
    const { file, port } = await writeServiceConfig({ supervisor: { max_restarts: maxRestarts, backoff_initial: '50ms' } });
    const { config } = loadConfig(file);
    const supervisor = new Supervisor(config, { indexerPassword: readIndexerPassword(config) }, pino({ level: 'silent' }));
    await supervisor.start();
    return { supervisor, url: `http://127.0.0.1:${port}` };
  }

  it('restarts a crashed actor and reports the restart', async () => {
    const { supervisor, url } = await startSupervisor(5);
    try {
      await crashActor('dedupe', 'drill in test');
      await waitFor(async () => {
        const dedupe = (await health(url)).actors['dedupe']!;
        return dedupe.state === 'running' && dedupe.restarts === 1;
      }, 5_000);
      const dedupe = (await health(url)).actors['dedupe']!;
      assert.match(dedupe.lastError ?? '', /drill in test/);
    } finally {
      await supervisor.stop();
    }
  });

  it('restarts a crashed http-front too', async () => {
    const { supervisor, url } = await startSupervisor(5);
    try {
      await crashActor('http-front', 'front drill');
      await waitFor(async () => (await health(url)).actors['http-front']!.restarts === 1, 5_000);
    } finally {
      await supervisor.stop();
    }
  });

  it('gives up after max_restarts crashes and exits non-zero', async () => {
    const { supervisor, url } = await startSupervisor(1);
    await crashActor('reconciler', 'first');
    await waitFor(async () => {
      const reconciler = (await health(url)).actors['reconciler']!;
      return reconciler.state === 'running' && reconciler.restarts === 1;
    }, 5_000);
    await crashActor('reconciler', 'second');
    assert.equal(await supervisor.done, 1);
  });
});

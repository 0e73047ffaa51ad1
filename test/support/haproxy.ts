// A real load balancer (Debian's haproxy) on loopback in front of several services under test: round robin per
// request, each server health-checked on /readyz, as README "More than one machine" configures it. Installed on
// first use when the testbed was made before it was one of its packages.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackages } from '../testbed/packages.js';
import { freePort } from './ports.js';
import { startService, waitFor, type Overrides, type RunningService } from './service.js';

export interface RunningBalancer {
  url: string;
  pid: number;
  /** What haproxy said of its servers so far: each proxy it took out (DOWN, with the check's reason) or back (UP). */
  serverChanges(): string[];
  /** Stops this haproxy (by its pid) and removes its config; prints the server changes, if any, to the test's output. */
  stop(): Promise<void>;
}

/**
 * How the balancer spreads requests: every request round robin, or (`webhooksByKey`) the webhook intake's by the
 * sender's X-Webhook-Key, so that one sender's events always reach the same proxy (cluster.event_ids: routed_by_key).
 */
export interface BalancerOptions {
  webhooksByKey?: boolean;
}

/** The balancer config for `backends` (service URLs); the README's examples are this with the proxies' addresses. */
export function haproxyConfig(port: number, backends: readonly string[], { webhooksByKey = false }: BalancerOptions = {}): string {
  const servers = backends.map((url, i) => `  server proxy${i + 1} ${new URL(url).host} check`);
  const checks = ['  option httpchk GET /readyz', '  http-check expect status 200', '  default-server inter 500ms fall 2 rise 2'];
  // Without it a check times out after `inter`: a loaded proxy whose /readyz runs its probes (every 5 s) for more
  // than half a second was taken out (stop 52's CI run ci1: all senders on one proxy, 503s after a kill). A dead
  // proxy still fails its check at once, as its port refuses the connection.
  const checkTimeout = '  timeout check 3s';
  const bySender = webhooksByKey
    ? [
      'backend webhook-senders',
      '  # one sender, one proxy: a consistent hash of its key, so that a proxy leaving moves only its own senders',
      '  balance hdr(X-Webhook-Key)',
      '  hash-type consistent',
      ...checks,
      ...servers,
    ]
    : [];
  return [
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    checkTimeout,
    '  # a request the balancer could not deliver (the proxy died before answering) goes to another proxy',
    '  retries 2',
    '  option redispatch',
    'frontend fileproxy',
    `  bind 127.0.0.1:${port}`,
    ...(webhooksByKey ? ['  use_backend webhook-senders if { path /edu-api/webhook }'] : []),
    '  default_backend proxies',
    'backend proxies',
    '  balance roundrobin',
    ...checks,
    ...servers,
    ...bySender,
    '',
  ].join('\n');
}

/** A line of haproxy's (in the foreground, on stderr) saying that it took a server out or back, or had none left. */
const SERVER_CHANGE = /Server \S+ is (DOWN|UP)|has no server available/;

export async function startHaproxy(backends: readonly string[], options: BalancerOptions = {}): Promise<RunningBalancer> {
  await ensureDebianPackages(['haproxy']);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-test-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(port, backends, options));
  // -db: stay in the foreground, so that this child is haproxy itself and its pid is the one to stop.
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 15_000, () => {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${output}`);
  });
  const serverChanges = () => output.split('\n').filter((line) => SERVER_CHANGE.test(line)).map((line) => line.trim());
  return {
    url,
    pid: child.pid!,
    serverChanges,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid!, 'SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
      const changes = serverChanges();
      if (changes.length > 0) console.log(`haproxy's server changes:\n${changes.join('\n')}`);
    },
  };
}

/** Services of one config behind one balancer, as README "More than one machine" runs several proxies. */
export interface ProxiesBehindBalancer {
  proxies: RunningService[];
  balancer: RunningBalancer;
  /** Stops the balancer, then every service. */
  stop(): Promise<void>;
}

/**
 * `count` services with the same `overrides`, started one after the other (the first creates the shared indices,
 * the others find them), behind a haproxy configured by `options` once each is ready.
 */
export async function startProxiesBehindHaproxy(count: number, overrides: Overrides, options: BalancerOptions = {}): Promise<ProxiesBehindBalancer> {
  const proxies: RunningService[] = [];
  const stopProxies = () => Promise.all(proxies.map((p) => p.stop()));
  try {
    for (let i = 0; i < count; i++) proxies.push(await startService(overrides));
    // Each proxy ready before the balancer checks it: a proxy's first /readyz waits for its first probes (a logon to
    // the directory and the file server), which on a busy machine took longer than the check's timeout, so that
    // haproxy took every proxy out at first and brought them back one by one, moving senders between them.
    await Promise.all(proxies.map((proxy) => waitFor(async () => (await fetch(`${proxy.url}/readyz`)).status === 200, 60_000)));
    const balancer = await startHaproxy(proxies.map((p) => p.url), options);
    return { proxies, balancer, stop: async () => { await balancer.stop(); await stopProxies(); } };
  } catch (error) {
    await stopProxies();
    throw error;
  }
}

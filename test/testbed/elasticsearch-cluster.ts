// A 3-node Elasticsearch cluster on loopback (HTTP 9201-9203, transport 9301-9303, 512 MB heap each), from the same
// install as the single testbed node and next to it, for the cluster tests only: `npm run testbed -- cluster up`
// starts it on demand, `cluster down` stops the nodes it started (by their pid files). Security is off, as on the
// single node, so every node listens on 127.0.0.1 only. The test runner starts it ahead of the cluster test
// (test/run-tests.ts), so two processes may start it at once: a lock file makes the second wait for the first.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launchNode, ownNodeFiles, runningNode, writeNodeConfig } from './elasticsearch.js';
import { layout } from './layout.js';
import { isAlive, stopProcess, waitUntil } from './processes.js';

const NODES = 3;
const clusterName = 'fileproxy-testbed-cluster';
const host = '127.0.0.1';
const clusterDir = path.join(layout.elasticsearch.dir, 'cluster');

function nodeName(i: number): string {
  return `cluster-${i + 1}`;
}

function nodeDir(i: number) {
  return ownNodeFiles(path.join(clusterDir, nodeName(i)), clusterName);
}

/** The HTTP URL of each node. */
export const clusterNodes: readonly string[] = Array.from({ length: NODES }, (_, i) => `http://${host}:${9201 + i}`);

/** The pid of node `i` if it runs. */
export function runningClusterNode(i: number): Promise<number | undefined> {
  return runningNode(nodeDir(i).pidFile);
}

function writeClusterNodeConfig(i: number): Promise<void> {
  return writeNodeConfig(nodeDir(i), [
    `cluster.name: ${clusterName}`,
    `node.name: ${nodeName(i)}`,
    `network.host: ${host}`,
    `http.port: ${9201 + i}`,
    `transport.port: ${9301 + i}`,
    `discovery.seed_hosts: [${Array.from({ length: NODES }, (_, n) => `"${host}:${9301 + n}"`).join(', ')}]`,
    `cluster.initial_master_nodes: [${Array.from({ length: NODES }, (_, n) => nodeName(n)).join(', ')}]`,
    'xpack.security.enabled: false',
  ]);
}

/** Starts node `i` unless it runs; returns its pid. */
export async function startClusterNode(i: number): Promise<number> {
  const running = await runningClusterNode(i);
  if (running !== undefined) return running;
  await writeClusterNodeConfig(i);
  const { confDir, pidFile, launcherLog, log, jit } = nodeDir(i);
  await launchNode({ confDir, pidFile, launcherLog, log, jit });
  const pid = await runningClusterNode(i);
  if (pid === undefined) throw new Error(`cluster node ${nodeName(i)} wrote no usable pid file`);
  return pid;
}

/** The cluster's health as node `via` sees it, or undefined when it does not answer. */
export async function clusterHealth(via = 0): Promise<{ status: string; number_of_nodes: number } | undefined> {
  try {
    const response = await fetch(`${clusterNodes[via]}/_cluster/health`, { signal: AbortSignal.timeout(2000) });
    return (await response.json()) as { status: string; number_of_nodes: number };
  } catch {
    return undefined;
  }
}

/** Waits until some node reports all three nodes and `status` (green by default). */
export async function waitForCluster(status = 'green', timeoutMs = 180_000): Promise<void> {
  await waitUntil(`the 3-node cluster ${status}`, async () => {
    for (let i = 0; i < NODES; i++) {
      const health = await clusterHealth(i);
      if (health?.number_of_nodes === NODES && health.status === status) return true;
    }
    return false;
  }, timeoutMs);
}

/**
 * Held (its content the holder's pid) while a process starts nodes of the cluster: a second process waits until the
 * first has finished, then finds the nodes running, instead of launching them a second time. A lock whose holder has
 * died is taken over.
 */
const startLock = path.join(clusterDir, 'starting.pid');

async function withStartLock<T>(work: () => Promise<T>): Promise<T> {
  await mkdir(clusterDir, { recursive: true });
  await waitUntil('another process\'s start of the cluster to end', async () => {
    try {
      await writeFile(startLock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // An empty file is one its holder is still writing.
      const holder = Number(await readFile(startLock, 'utf8').catch(() => ''));
      if (holder > 0 && !isAlive(holder)) await rm(startLock, { force: true });
      return false;
    }
  }, 300_000);
  try {
    return await work();
  } finally {
    await rm(startLock, { force: true });
  }
}

/**
 * Set by the test runner for the serial tier when it has started the whole cluster ahead of the cluster test
 * (test/tiers.ts, startedAhead): the test then stops it when done, as if it had started it itself.
 */
export const CLUSTER_STARTED_AHEAD = 'FILEPROXY_CLUSTER_STARTED_AHEAD';

/**
 * Starts the nodes that do not run (side by side) and waits for a green cluster; returns the nodes the caller is to
 * stop: those it started, or all of them when the runner started the cluster for this process.
 */
export async function ensureClusterRunning(): Promise<number[]> {
  const started: number[] = [];
  await withStartLock(() => Promise.all(Array.from({ length: NODES }, async (_, i) => {
    if ((await runningClusterNode(i)) === undefined) {
      await startClusterNode(i);
      started.push(i);
    }
  })));
  await waitForCluster();
  return process.env[CLUSTER_STARTED_AHEAD] === undefined ? started.sort() : Array.from({ length: NODES }, (_, i) => i);
}

/** Whether no node of the cluster runs. */
export async function clusterStopped(): Promise<boolean> {
  return (await Promise.all(Array.from({ length: NODES }, (_, i) => runningClusterNode(i)))).every((pid) => pid === undefined);
}

/** SIGKILL of node `i`, as a crash would end it; resolves once it is gone. */
export async function killClusterNode(i: number): Promise<void> {
  const pid = await runningClusterNode(i);
  if (pid === undefined) throw new Error(`cluster node ${nodeName(i)} does not run`);
  process.kill(pid, 'SIGKILL');
  await waitUntil(`${nodeName(i)} (pid ${pid}) to exit`, async () => !isAlive(pid), 10_000);
}

/** Stops the nodes (default all) by their pid files; their data stays for the next `cluster up`. */
export async function stopCluster(nodes: readonly number[] = Array.from({ length: NODES }, (_, i) => i)): Promise<string[]> {
  return Promise.all(nodes.map(async (i) => {
    const pid = await runningClusterNode(i);
    return pid === undefined ? `${nodeName(i)} not running` : `${nodeName(i)} pid ${pid} ${await stopProcess(pid)}`;
  }));
}


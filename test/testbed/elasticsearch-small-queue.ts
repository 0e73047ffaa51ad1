// An Elasticsearch node whose write thread pool has one thread and a queue of one (HTTP 9220, transport 9320, 512 MB
// heap), from the same install as the other nodes, for the back-pressure test: a few `_bulk` requests at once fill
// its queue and it answers 429 (es_rejected_execution_exception), which the shared node (10,000 queued writes)
// hardly ever does. `npm run testbed -- small-queue up` starts it on demand, `small-queue down` stops it (by its pid
// file); a test that finds it down starts it and stops it again. Security is off: it listens on 127.0.0.1 only.
import path from 'node:path';
import { fileTail } from './files.js';
import { clusterStatus, launchNode, ownNodeFiles, runningNode, writeNodeConfig } from './elasticsearch.js';
import { layout } from './layout.js';
import { isPortOpen, stopProcess, waitUntil } from './processes.js';

const clusterName = 'fileproxy-testbed-small-queue';
const host = '127.0.0.1';
const httpPort = 9220;
const dir = path.join(layout.elasticsearch.dir, 'small-queue');
const node = ownNodeFiles(dir, clusterName);

export const smallQueueNodeUrl = `http://${host}:${httpPort}`;

function runningSmallQueueNode(): Promise<number | undefined> {
  return runningNode(node.pidFile);
}

/** Starts the node unless it runs and waits until it answers; returns whether it was started now. */
export async function ensureSmallQueueNodeRunning(): Promise<{ started: boolean }> {
  let started = false;
  if ((await runningSmallQueueNode()) === undefined) {
    if (await isPortOpen(host, httpPort)) throw new Error(`port ${httpPort} on ${host} is in use by a process the testbed did not start`);
    await writeNodeConfig(node, [
      `cluster.name: ${clusterName}`,
      'node.name: small-queue',
      'discovery.type: single-node',
      `network.host: ${host}`,
      `http.port: ${httpPort}`,
      `transport.port: ${httpPort + 100}`,
      'xpack.security.enabled: false',
      'thread_pool.write.size: 1',
      'thread_pool.write.queue_size: 1',
    ]);
    await launchNode(node);
    if ((await runningSmallQueueNode()) === undefined) throw new Error(`the small-queue node wrote no usable pid file\n${await fileTail(node.log)}`);
    started = true;
  }
  await waitUntil('the small-queue Elasticsearch node green or yellow', async () => ['green', 'yellow'].includes((await clusterStatus(smallQueueNodeUrl)) ?? ''), 120_000, () => fileTail(node.log));
  return { started };
}

export async function stopSmallQueueNode(): Promise<string> {
  const pid = await runningSmallQueueNode();
  return pid === undefined ? 'small-queue node not running' : `small-queue node pid ${pid} ${await stopProcess(pid)}`;
}

/** The line of `small-queue status`, and whether the node runs and answers. */
export async function smallQueueNodeStatus(): Promise<{ text: string; up: boolean }> {
  const pid = await runningSmallQueueNode();
  const status = pid === undefined ? undefined : await clusterStatus(smallQueueNodeUrl);
  return {
    text: `${smallQueueNodeUrl}: ${pid === undefined ? 'down' : `pid ${pid}, cluster ${status ?? 'not answering'}`}`,
    up: status === 'green' || status === 'yellow',
  };
}

// A worker of the smb-reader pool (piscina runs the default export per task).
import { threadId } from 'node:worker_threads';
import type { SmbReaderResult, SmbReaderTask } from '../../src/messages/pools.js';

export default async function run(task: SmbReaderTask): Promise<SmbReaderResult> {
  switch (task.type) {
    case 'ping':
      return { type: 'pong', threadId };
  }
}

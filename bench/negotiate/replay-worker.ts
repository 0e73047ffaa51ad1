// The far end of the replay-cache round trip in bench/negotiate/run.ts: a ReplayCache served over an RpcChannel
// from another thread, as the supervisor serves it to the http-front threads.
import { workerData, type MessagePort } from 'node:worker_threads';
import { REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT, ReplayCache } from '../../src/kerberos/replay-cache.js';
import { RpcChannel } from '../../src/runtime/rpc.js';

const { port, skewMs } = workerData as { port: MessagePort; skewMs: number };
const cache = new ReplayCache(skewMs, REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT);
new RpcChannel(port, 'bench', { admitAuthenticator: async (client: string, ctime: Date, cusec: number, now: Date) => cache.verdict(client, ctime, cusec, now) });

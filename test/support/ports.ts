// A free TCP port on loopback for a service under test.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A loopback port where no server answers, held until `close()`: each connection is reset at once. A port that
 * freePort() found free is not that: in the parallel tier another test's listener may take it before it is used,
 * and then answer (a forwarder to Elasticsearch, say).
 */
export async function refusingPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return { port: address.port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

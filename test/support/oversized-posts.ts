// Requests over a limit (a body far over a route's, headers over the
// parser's) or refused for their framing, each on a new connection, sent
// from a child process: in the server's own event loop the client would read
// every answer before the server's close is seen, and an answer lost to a
// reset could never show.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface OversizedPost {
  path: string;
  /** Length of one extra header's value. */
  headerBytes: number;
  bodyBytes: number;
  /** Framed by this Transfer-Encoding instead of a Content-Length (one not ending in chunked: a body of unknown length). */
  transferEncoding?: string;
}

/** The status line of each answer to `count` such POSTs ('' where the connection closed without one). */
export async function statusLinesOfOversizedPosts(port: number, post: OversizedPost, count: number): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), String(port), JSON.stringify(post), String(count)]);
  return JSON.parse(stdout) as string[];
}

/**
 * Writes `bytes` on a new connection, then reads everything the server sends until the connection closes.
 * Like a client that sends its whole request before it reads (curl, most libraries), it reads nothing while
 * writing: a reset that fails the write then loses the answer for certain, not by a race.
 */
function exchangeOnce(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let received = '';
    socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(bytes, () => socket.resume());
  });
}

async function main(port: number, post: OversizedPost, count: number): Promise<void> {
  const request = Buffer.concat([
    Buffer.from(`POST ${post.path} HTTP/1.1\r\nhost: x\r\nx-padding: ${'p'.repeat(post.headerBytes)}\r\ncontent-type: application/json\r\n`
      + (post.transferEncoding === undefined ? `content-length: ${post.bodyBytes}` : `transfer-encoding: ${post.transferEncoding}`) + '\r\n\r\n'),
    Buffer.alloc(post.bodyBytes, 'x'),
  ]);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push((await exchangeOnce(port, request)).split('\r\n', 1)[0]!);
  process.stdout.write(JSON.stringify(lines));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, post, count] = process.argv.slice(2);
  await main(Number(port), JSON.parse(post!) as OversizedPost, Number(count));
}

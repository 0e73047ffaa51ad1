// A slow HTTP client: writes the start of a request at once and the rest one
// byte at a time, and notes what the server answers and when it closes.
import { connect } from 'node:net';

export interface TrickleResult {
  /** Everything the server sent, as latin1. */
  text: string;
  /** From the first byte sent to the server's close. */
  closedAfterMs: number;
}

/** Sends `first`, then `rest` one byte every `everyMs`; resolves when the server closes, rejects after `giveUpMs`. */
export function trickle(port: number, first: string, rest: string, everyMs = 100, giveUpMs = 10_000): Promise<TrickleResult> {
  return new Promise((resolve, reject) => {
    let started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    // The trickle starts once connected: a socket takes writes while it connects, and on a busy host a byte of
    // `rest` would otherwise go out before `first`.
    const socket = connect(port, '127.0.0.1', () => {
      started = Date.now();
      socket.write(first);
      timer = setInterval(() => { if (sent < rest.length && socket.writable) socket.write(rest[sent++]!); }, everyMs);
    });
    let text = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection within ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (d: Buffer) => { text += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
  });
}

// Closing a connection without losing the answer just sent on it. A socket
// closed while input is still unread makes the kernel send a reset, and a
// client still sending (an upload answered 413 before it ended, headers
// refused as too large) may then lose the answer it has not read yet. So the
// answer is followed by a FIN, and what the client still sends is read and
// dropped until it closes its side, for LINGER_MS at most.
import type { Duplex } from 'node:stream';

/** How long a closing connection keeps reading what the client still sends. */
const LINGER_MS = 2_000;

/** Ends `socket` after what was written to it, then closes it once the client has closed (LINGER_MS at most). */
export function closeWithoutReset(socket: Duplex): void {
  // Reading (and dropping) starts once the FIN is out: until then Node's HTTP server may still stop reading
  // this socket for the request it was parsing (its body buffer full), and a resume() before that is undone.
  socket.end(() => {
    socket.on('data', () => undefined);
    socket.resume();
  });
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

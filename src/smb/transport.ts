/**
 * TCP transport with Direct TCP framing (MS-SMB2 2.1): every SMB2 message is preceded by a zero byte and a
 * 24-bit big-endian length. FrameDecoder is pure so that it can be fuzzed without sockets.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { SmbConnectionError, SmbProtocolError, SmbTimeoutError } from './errors.js';

const MAX_FRAME_SIZE = 0xffffff;

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Frames announcing more than this are rejected before they are buffered. */
  maxFrameSize = MAX_FRAME_SIZE;

  /** Feeds bytes from the socket; returns the complete frames. Throws on a malformed frame prefix. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      if (head[0] !== 0) throw new SmbProtocolError(`bad Direct TCP frame prefix 0x${head[0]!.toString(16)}`);
      const length = head.readUIntBE(1, 3);
      if (length < 4) throw new SmbProtocolError(`Direct TCP frame of ${length} bytes is too short`);
      if (length > this.maxFrameSize) throw new SmbProtocolError(`Direct TCP frame of ${length} bytes exceeds the ${this.maxFrameSize} byte limit`);
      if (this.buffered < 4 + length) break;
      this.take(4);
      frames.push(this.take(length));
    }
    return frames;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.chunks[0]!;
        const k = Math.min(c.length, n - filled);
        c.copy(out, filled, 0, k);
        filled += k;
        if (k === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(k);
      }
    }
    this.buffered -= n;
    return out;
  }
}

interface TransportHandlers {
  onFrame(frame: Buffer): void;
  onClose(error: Error): void;
}

export class Transport {
  private closed = false;
  /**
   * Whether messages are being held back until the event loop's turn ends. Each write to the socket is a syscall
   * that wakes the server's process; a task that asks for several folders at once, or the answers of one read that
   * each send the next request, then cost one. On the testbed's virtual machine a no-change pass's smb-reader threads
   * spent a fifth of their CPU in writev (a CPU profile at c382cdd): on loopback the sender's kernel call also runs
   * the receiving side and wakes smbd.
   */
  private corked = false;
  private readonly decoder = new FrameDecoder();

  private constructor(
    private readonly socket: Socket,
    private readonly handlers: TransportHandlers,
  ) {
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = this.decoder.push(chunk);
      } catch (err) {
        this.destroy(err as Error);
        return;
      }
      for (const f of frames) {
        if (this.closed) return;
        this.handlers.onFrame(f);
      }
    });
    socket.on('error', (err) => this.destroy(new SmbConnectionError(`SMB connection error: ${err.message}`, err)));
    socket.on('close', () => this.destroy(new SmbConnectionError('SMB connection closed by the server')));
  }

  static connect(host: string, port: number, timeoutMs: number, handlers: TransportHandlers): Promise<Transport> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host, port, noDelay: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new SmbTimeoutError(`connecting to ${host}:${port} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        reject(new SmbConnectionError(`cannot connect to ${host}:${port}: ${err.message}`, err));
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        socket.setKeepAlive(true, 30_000);
        resolve(new Transport(socket, handlers));
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  set maxFrameSize(n: number) {
    this.decoder.maxFrameSize = n;
  }

  /** Local TCP port, used to find the server-side process of this connection. */
  get localPort(): number | undefined {
    return this.socket.localPort;
  }

  /**
   * Queues one message; the messages sent in one turn of the event loop leave together, in one write (see `corked`).
   */
  send(message: Buffer): void {
    if (this.closed) throw new SmbConnectionError('SMB connection is closed');
    if (message.length > MAX_FRAME_SIZE) throw new SmbProtocolError(`message of ${message.length} bytes exceeds the frame limit`);
    const prefix = Buffer.alloc(4);
    prefix.writeUIntBE(message.length, 1, 3);
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(this.uncork);
    }
    this.socket.write(prefix);
    this.socket.write(message);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  destroy(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.handlers.onClose(error);
  }
}

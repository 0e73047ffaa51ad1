/**
 * The one home of logging. Library code takes the part of a logger it calls (Logger: pino's fits), so that a
 * library folder takes the thread's logger without depending on pino, and a test passes silentLog or a recorder;
 * each thread makes its pino logger with createLogger, so that every thread logs the same JSON shape.
 */
import { pino, type Logger as PinoLogger } from 'pino';

/** The logging that library code does. */
export interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: Logger = { info: () => undefined, warn: () => undefined };

/** Keys whose values must never reach a log line. */
const REDACTED = [
  'password', '*.password', 'key', '*.key', 'apiKey', '*.apiKey', 'authorization', '*.authorization',
  'headers.authorization', 'headers["x-webhook-key"]', 'req.headers.authorization', 'req.headers["x-webhook-key"]',
];

/** The part of the config the logger reads. */
export interface LogSettings { log?: { level?: string } }

/**
 * Writes of a buffered logger stay within PIPE_BUF (4096 bytes on Linux) and hold whole lines, so that the lines of
 * threads writing to the same pipe never interleave.
 */
const PIPE_BUF = 4096;

/**
 * A buffered logger writes once it holds this much (or at FLUSH_EVERY_MS): a line per write cost a write syscall
 * per request, and its reader (journald, a test) a wake-up and a read each.
 */
const WRITE_AT_BYTES = 2048;
/** How long a line may wait in a buffered logger for others to fill its write. */
const FLUSH_EVERY_MS = 100;

/**
 * `buffered`: lines are written off the calling code's path (asynchronously, several per write: WRITE_AT_BYTES,
 * FLUSH_EVERY_MS), for threads that log a line per request; such a thread calls flushLogSync before it exits.
 */
export function createLogger(config: LogSettings | undefined, bindings: Record<string, unknown> = {}, { buffered = false } = {}): PinoLogger {
  const options = {
    level: config?.log?.level ?? 'info',
    base: { pid: process.pid, ...bindings },
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  return buffered ? pino(options, bufferedDestination()) : pino(options);
}

/**
 * Standard output, written asynchronously once WRITE_AT_BYTES are held, and the rest every FLUSH_EVERY_MS while
 * any is held. sonic-boom's own periodicFlush would write every time, idle or not (an empty write through libuv's
 * thread pool), and its flush does nothing while a write is under way: so the bytes not yet written are counted
 * here ('write' reports each write's bytes) and the flush is tried again until none are left.
 */
function bufferedDestination(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, maxWrite: PIPE_BUF, minLength: WRITE_AT_BYTES });
  const write = stream.write.bind(stream);
  let unwritten = 0;
  stream.write = (line: string) => {
    unwritten += Buffer.byteLength(line);
    return write(line);
  };
  stream.on('write', (bytes: number) => {
    unwritten -= bytes;
  });
  setInterval(() => {
    if (unwritten > 0) stream.flush();
  }, FLUSH_EVERY_MS).unref();
  return stream;
}

/**
 * A logger writing to the same destination with the same bindings and level as `log`, but without the redaction
 * pass, for lines whose fields are fixed primitives the caller picks (the per-request line: id, method, route
 * pattern, status, duration, outcome). Redaction costs more than the line itself (bench/RESULTS.md, Request path
 * profile).
 */
export function withoutRedaction(log: PinoLogger): PinoLogger {
  return pino({ level: log.level, base: null }, destinationOf(log)).child(log.bindings());
}

/** Where a logger writes (pino keeps it under a symbol of its own). */
function destinationOf(log: PinoLogger): pino.DestinationStream {
  return (log as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]!;
}

/** Writes out what a buffered logger holds (before the thread exits). */
export function flushLogSync(log: PinoLogger): void {
  try {
    (destinationOf(log) as { flushSync?: () => void } | undefined)?.flushSync?.();
  } catch {
    // Not open yet or already closed: nothing to write.
  }
}

/**
 * An error as a request's log line may show it: its type, code and stack frames, but not its message,
 * which can name what the request addressed (an SMB error names the share and file; the README promises
 * that request logs never carry a path).
 */
export function errorWithoutMessage(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err };
  const code = (err as { code?: unknown }).code;
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).map((line) => line.trim());
  return { type: err.name, ...(typeof code === 'string' ? { code } : {}), stack: frames };
}

// One logger factory so every thread logs the same JSON shape.
import { pino, type Logger } from 'pino';

/** Keys whose values must never reach a log line. */
const REDACTED = [
  'password', '*.password', 'key', '*.key', 'apiKey', '*.apiKey', 'authorization', '*.authorization',
  'headers.authorization', 'headers["x-webhook-key"]', 'req.headers.authorization', 'req.headers["x-webhook-key"]',
];

/** The part of the config the logger reads. */
export interface LogSettings { log?: { level?: string } }

export function createLogger(config: LogSettings | undefined, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level: config?.log?.level ?? 'info',
    base: { pid: process.pid, ...bindings },
    redact: { paths: REDACTED, censor: '[redacted]' },
  });
}

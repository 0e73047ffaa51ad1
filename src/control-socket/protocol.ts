/**
 * The reconciler's local admin channel, used by `fileproxy reindex`: a Unix socket `admin/reconciler.sock` in
 * `storage.data_dir`. The `admin` folder has mode 700, so only the service's account (and root) may connect; the
 * file system is the authentication. One request per connection, as newline-delimited JSON:
 *
 *   → {"op":"run","job":{"kind":"reindex","shares":["schule"],"dryRun":false}}
 *   ← {"event":"job","job":{...JobInfo}}        on acceptance, about 4 times a second while it runs, and at the end
 *   → {"op":"cancel"}                           stops the connection's job (so does closing the connection)
 *
 * The reconciler's status is not asked here: /healthz carries it (the reconciler's details).
 * A refused request is answered `{"event":"error","message":"..."}`. Passes (`kind: pass`) join the pass already
 * queued or running and are not cancelled when their connection closes.
 */
import { join } from 'node:path';
import * as z from 'zod';
import type { JobInfo } from '../indexing/reconciler/jobs.js';

/** Folder of the socket below `storage.data_dir`; mode 700 is what keeps other accounts out. */
const ADMIN_DIR = 'admin';
const ADMIN_SOCKET_NAME = 'reconciler.sock';
/** Longest Unix socket path Linux accepts (sun_path is 108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Requests are tiny; anything longer is not a request. */
export const MAX_REQUEST_LINE = 4096;
/** Events carry a job's report; generous, but bounded. */
export const MAX_EVENT_LINE = 1024 * 1024;

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_DIR, ADMIN_SOCKET_NAME);
}

/** Why the socket cannot be created at that path, or null. */
export function socketPathProblem(path: string): string | null {
  const bytes = Buffer.byteLength(path);
  return bytes > MAX_SOCKET_PATH_BYTES ? `the socket path ${path} is ${bytes} bytes long; Unix sockets allow ${MAX_SOCKET_PATH_BYTES}` : null;
}

const jobRequest = z.strictObject({
  kind: z.enum(['pass', 'reindex', 'rebuild']),
  shares: z.array(z.string().min(1)).min(1).optional(),
  dryRun: z.boolean().optional(),
});

const adminRequest = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('run'), job: jobRequest }),
  z.strictObject({ op: z.literal('cancel') }),
]);

export type AdminRequest = z.infer<typeof adminRequest>;

export type AdminEvent =
  | { event: 'job'; job: JobInfo }
  | { event: 'error'; message: string };

export class AdminProtocolError extends Error {
  override readonly name = 'AdminProtocolError';
}

export function parseAdminRequest(line: string): AdminRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new AdminProtocolError('the request is not JSON');
  }
  const parsed = adminRequest.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AdminProtocolError(`invalid request: ${issue.path.join('.') || 'request'}: ${issue.message}`);
  }
  return parsed.data;
}

export function encodeLine(message: AdminRequest | AdminEvent): string {
  return `${JSON.stringify(message)}\n`;
}

/** Splits a byte stream into lines; a line longer than `maxLine` characters is an error. */
export class LineSplitter {
  private buffer = '';

  constructor(private readonly maxLine: number) {}

  push(chunk: string): string[] {
    this.buffer += chunk;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop()!;
    if (this.buffer.length > this.maxLine || lines.some((line) => line.length > this.maxLine)) {
      throw new AdminProtocolError(`a line is longer than ${this.maxLine} characters`);
    }
    return lines.filter((line) => line.trim() !== '');
  }
}

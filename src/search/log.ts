import { createHash } from 'node:crypto';

/**
 * A file or folder of a share as a log line names it: the first 16 hex digits of the SHA-256 of share, NUL and path
 * (both lowercase), never the path itself, which may say whose class or case it is. The same path gives the same id
 * in every line, thread and run, so an operator who suspects a path can compute its id and find its lines.
 */
export function pathId(share: string, path: string): string {
  return createHash('sha256').update(`${share.toLowerCase()}\0${path.toLowerCase()}`).digest('hex').slice(0, 16);
}

import { createHash } from 'node:crypto';
import { SmbError, smbErrorSummary } from '../smb/errors.js';
import { explainSearchFailure } from '../common/search-failure.js';

/** The logging the search library does; a pino Logger fits. */
export interface SearchLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: SearchLog = { info: () => undefined, warn: () => undefined };

/**
 * What a log line says about a failed Elasticsearch call (a refused login, an untrusted certificate in plain words),
 * or about a failed SMB call (without the path it names: logs carry none).
 */
export function describeError(error: unknown): { error: string } {
  return { error: error instanceof SmbError ? smbErrorSummary(error) : explainSearchFailure(error).message };
}

/**
 * A file or folder of a share as a log line names it: the first 16 hex digits of the SHA-256 of share, NUL and path
 * (both lowercase), never the path itself, which may say whose class or case it is. The same path gives the same id
 * in every line, thread and run, so an operator who suspects a path can compute its id and find its lines.
 */
export function pathId(share: string, path: string): string {
  return createHash('sha256').update(`${share.toLowerCase()}\0${path.toLowerCase()}`).digest('hex').slice(0, 16);
}

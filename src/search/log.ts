import { explainSearchFailure } from './failure.js';

/** The logging the search library does; a pino Logger fits. */
export interface SearchLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: SearchLog = { info: () => undefined, warn: () => undefined };

/** What a log line says about a failed Elasticsearch call (a refused login, an untrusted certificate in plain words). */
export function describeError(error: unknown): { error: string } {
  return { error: explainSearchFailure(error).message };
}

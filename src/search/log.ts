/** The logging the search library does; a pino Logger fits. */
export interface SearchLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: SearchLog = { info: () => undefined, warn: () => undefined };

/** What a log line says about a failed Elasticsearch call. */
export function describeError(error: unknown): { error: string } {
  return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/**
 * What a log line or a health report says about a failure, in one line. An error whose message may carry what logs
 * must not (an SMB status error names the share and file) describes itself under `logDescription`; any other is its
 * name and message. A domain whose errors are a library's and cannot describe themselves wraps this describer with
 * what it knows of them (src/search/search-failure.ts: Elasticsearch's).
 */

/** The key of an error's own description (a method returning one line). */
export const logDescription = Symbol('logDescription');

export interface DescribesItself {
  [logDescription](): string;
}

function describesItself(error: unknown): error is DescribesItself {
  return typeof (error as Partial<DescribesItself> | null)?.[logDescription] === 'function';
}

export function describeError(error: unknown): { error: string } {
  if (describesItself(error)) return { error: error[logDescription]() };
  return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

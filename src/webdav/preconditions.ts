// The conditional request headers of RFC 9110 §13.2.2, evaluated in the
// order it prescribes, against the current state of the target (or its
// absence).
import { parseEtagList, strongMatch, weakMatch } from './etag.js';

interface EntityState {
  etag: string;
  /** Last modification, ms since the epoch. */
  mtimeMs: number;
}

interface ConditionalHeaders {
  'if-match'?: string;
  'if-none-match'?: string;
  'if-modified-since'?: string;
  'if-unmodified-since'?: string;
}

/** What to do: go on, answer 304 Not Modified, or answer 412 Precondition Failed. */
type PreconditionOutcome = 'proceed' | 304 | 412;

/** Whether the request carries any header this module evaluates. */
export function hasPreconditions(headers: ConditionalHeaders): boolean {
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined
    || headers['if-modified-since'] !== undefined || headers['if-unmodified-since'] !== undefined;
}

export function evaluatePreconditions(method: string, current: EntityState | null, headers: ConditionalHeaders): PreconditionOutcome {
  const safe = method === 'GET' || method === 'HEAD';
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    const list = parseEtagList(ifMatch);
    if (current === null) return 412;
    if (list !== '*' && !list.some((t) => strongMatch(t, current.etag))) return 412;
  } else {
    const since = httpDate(headers['if-unmodified-since']);
    if (since !== undefined && current !== null && seconds(current.mtimeMs) > since) return 412;
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const list = parseEtagList(ifNoneMatch);
    const matches = current !== null && (list === '*' || list.some((t) => weakMatch(t, current.etag)));
    if (matches) return safe ? 304 : 412;
  } else if (safe && current !== null) {
    const since = httpDate(headers['if-modified-since']);
    if (since !== undefined && seconds(current.mtimeMs) <= since) return 304;
  }
  return 'proceed';
}

/** An HTTP date in ms (whole seconds), or undefined when absent or unparsable (such headers are ignored). */
export function httpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/**
 * What a bench counts as a search answered as asked. With Elasticsearch failing, the service still answers 200, with
 * empty lists and `degraded: true` (src/search/search.ts): fast, and no search at all. Such an answer is unexpected
 * like any other status than 200; search.lua counts the same for wrk's rounds.
 */

import { Unexpected } from '../results.js';

/** Why an answer of `POST /wiki/search` or `GET /wiki/suggest` is not the one asked for; undefined when it is. */
export function searchAnswerProblem(status: number, body: string): string | undefined {
  if (status !== 200) return `status ${status}`;
  return isDegraded(body) ? 'degraded' : undefined;
}

/**
 * Whether the answer says Elasticsearch could not answer. Matched in the text, as search.lua does: the key written
 * as the service writes it cannot occur inside a hit's strings, where JSON escapes the quotes.
 */
function isDegraded(body: string): boolean {
  return body.includes('"degraded":true');
}

/** What search.lua prints: wrk's counts, and the answers that said `"degraded":true`. */
export interface WrkSummary {
  requests: number;
  duration_us: number;
  non2xx: number;
  degraded: number;
  socket_errors: number;
  p50_us: number;
  p99_us: number;
}

/**
 * The answers of a wrk round that were not the search asked for (a status ≥ 400, a degraded answer, a broken
 * request), and how many were: an error or an empty degraded answer is no throughput.
 */
export function wrkAnswers(target: string, s: WrkSummary): { unexpected: Unexpected; answered: number } {
  const unexpected = new Unexpected().add(target, 'status ≥ 400', s.non2xx).add(target, 'degraded', s.degraded).add(target, 'socket error', s.socket_errors);
  return { unexpected, answered: s.requests - s.non2xx - s.degraded };
}

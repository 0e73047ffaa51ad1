// What GET /healthz reports: every actor the supervisor runs and every pool an actor owns (worker-pool.ts).
import type { ActorDetails } from './control.js';

export type ActorState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface ActorHealth {
  state: ActorState;
  kind: 'actor' | 'pool';
  restarts: number;
  /** Seconds since the current incarnation became ready. */
  uptimeSeconds?: number;
  lastError?: string;
  details?: ActorDetails;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  actors: Record<string, ActorHealth>;
}

/**
 * A text as /healthz shows it, or a log line that another module's text goes into: every word with a path separator
 * in it (a folder of the host, a file on a share) becomes '…'. /healthz answers without authentication, and no log
 * line carries a share path.
 */
export function withoutPaths(text: string): string {
  return text.replace(/[^\s'"`,;()]*[\\/][^\s'"`,;()]*/g, '…');
}

/**
 * URLs; IPv4 addresses and bracketed IPv6 addresses, with or without a port; a dotted host or localhost with a port;
 * bare IPv6 addresses (matched loosely, kept unless they hold "::" or seven colons, so that times stay).
 */
const ADDRESS = /\b[a-z][a-z0-9+.-]*:\/\/\S+|\[[0-9a-f:.]+\](?::\d+)?|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\b(?:[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+|localhost):\d{1,5}\b|(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![\w:])/gi;

function redactAddress(match: string): string {
  const bareIpv6 = /^[0-9a-f:]+$/i.test(match) && !match.includes('.');
  return !bareIpv6 || match.includes('::') || match.split(':').length === 8 ? '…' : match;
}

/**
 * How a text is shown to an anonymous caller (/healthz): withoutPaths, and every URL, address, host:port and each of
 * `names` (the deployment's hosts, domain, realm and accounts) becomes '…'. The log keeps the whole text. The names
 * are compiled into one pattern here, once, not for every text of every report.
 */
export function addressRedactor(names: readonly string[]): (text: string) => string {
  // Longest first, so that a name inside another (the domain EDU in the realm edu.test) does not split it.
  const alternatives = names.filter((name) => name !== '').sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const named = alternatives.length === 0 ? undefined : new RegExp(`(?<![\\w.-])(?:${alternatives.join('|')})(?![\\w-])`, 'gi');
  return (text) => {
    const redacted = withoutPaths(text.replace(ADDRESS, redactAddress));
    return named === undefined ? redacted : redacted.replace(named, '…');
  };
}

/** The report with every text in it (errors, states) passed through `redact` (addressRedactor); numbers and keys stay. */
export function anonymousHealth(report: HealthReport, redact: (text: string) => string): HealthReport {
  const redacted = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value);
    if (Array.isArray(value)) return value.map(redacted);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v)]));
    return value;
  };
  return redacted(report) as HealthReport;
}

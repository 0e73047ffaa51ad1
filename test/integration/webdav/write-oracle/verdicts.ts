/**
 * The write oracle's findings for one (user, target, operation) cell, from the two verdicts and the two effects:
 *  - escalation: the service did what the file server refused the user: allowed it, or answered a refusal but
 *    left something other than what was there before or what the direct steps left (a MOVE over a file whose
 *    rename is refused may have deleted the target first, as the direct steps do);
 *  - miss: the file server allowed, the service refused; each kind (operation and the service's answer) must be one
 *    of DOCUMENTED_MISSES;
 *  - effect: both allowed, but what the service left (owner, DACL, control bits, content) is not what the direct
 *    operation left;
 *  - partial (reported, not a failure): both refused, and the service left what the direct steps left, which is not
 *    what was there (a MOVE or COPY over a file deleted the target as the user, then could not put the source there).
 */
import type { PathState } from './effects.js';
import type { Operation, Verdict } from './operations.js';

/**
 * The misses the service is known to have, by kind (`<operation>: <the service's answer>`), with the reason. A miss
 * of any other kind fails the oracle.
 */
export const DOCUMENTED_MISSES: Readonly<Record<string, string>> = {
  'PUT over existing, large body: 403 staging_denied':
    'a body over 1 MiB waits in a private staging file next to the target, which needs FILE_ADD_FILE on the folder; ' +
    'a user who may write the file but not add files to its folder saves it only up to 1 MiB (src/webdav/README.md)',
};

export interface Finding {
  kind: 'escalation' | 'miss' | 'effect' | 'partial';
  /** A miss's kind (`<operation>: <the service's answer>`); otherwise what happened. */
  why: string;
}

export function isDocumented(finding: Finding): boolean {
  return finding.kind === 'miss' && finding.why in DOCUMENTED_MISSES;
}

/** The touched paths' states: before the operation, after it through the service and after the direct steps. */
export interface Effects {
  /** The touched paths of the service's tree. */
  paths: string[];
  before: PathState[];
  proxy: PathState[];
  direct: PathState[];
}

export function findingOf(op: Operation, proxy: Verdict, direct: Verdict, effects: Effects): Finding | null {
  const same = (a: PathState[], b: PathState[]): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (proxy.allowed && !direct.allowed) return { kind: 'escalation', why: 'allowed what the file server refused' };
  if (!proxy.allowed && direct.allowed) return { kind: 'miss', why: `${op.name}: ${proxy.status}` };
  if (!proxy.allowed) {
    if (same(effects.proxy, effects.before)) return null;
    if (same(effects.proxy, effects.direct)) return { kind: 'partial', why: changes(effects) };
    return { kind: 'escalation', why: `refused, but left ${describe(effects.proxy)} where there was ${describe(effects.before)}` };
  }
  if (same(effects.proxy, effects.direct)) return null;
  return { kind: 'effect', why: `left ${describe(effects.proxy)}, the direct operation ${describe(effects.direct)}` };
}

/** What the service changed, path by path (`gone`, `created`, `changed`). */
function changes({ paths, before, proxy }: Effects): string {
  const what = (was: PathState, now: PathState): string => (now === null ? 'gone' : was === null ? 'created' : 'changed');
  return paths.flatMap((p, i) => (JSON.stringify(before[i]) === JSON.stringify(proxy[i]) ? [] : [`${p} ${what(before[i] ?? null, proxy[i] ?? null)}`])).join(', ');
}

/** The touched paths' states without the encoded descriptor (its readable form says the same). */
function describe(states: PathState[]): string {
  return JSON.stringify(states.map((s) => s && { acl: s.acl, content: s.content, readonly: s.readonly }));
}

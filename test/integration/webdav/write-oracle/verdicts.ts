/**
 * The write oracle's findings for one (user, target, operation) cell, from the two verdicts and the two effects:
 *  - escalation: the service did what the file server refused the user (allowed it, or changed something while
 *    answering a refusal);
 *  - miss: the file server allowed, the service refused; each kind (operation and the service's answer) must be one
 *    of DOCUMENTED_MISSES;
 *  - effect: both allowed, but what the service left (owner, DACL, control bits, content) is not what the direct
 *    operation left.
 */
import type { PathState } from './effects.js';
import type { Operation, Verdict } from './operations.js';

/**
 * The misses the service is known to have, by kind (`<operation>: <the service's answer>`), with the reason. A miss
 * of any other kind fails the oracle.
 */
export const DOCUMENTED_MISSES: Readonly<Record<string, string>> = {};

export type Finding =
  | { kind: 'escalation'; why: string }
  | { kind: 'miss'; missKind: string; documented: boolean }
  | { kind: 'effect'; why: string };

export function findingOf(op: Operation, proxy: Verdict, direct: Verdict, proxyState: PathState[], directState: PathState[]): Finding | null {
  const sameEffect = JSON.stringify(proxyState) === JSON.stringify(directState);
  if (proxy.allowed && !direct.allowed) return { kind: 'escalation', why: 'allowed what the file server refused' };
  if (!proxy.allowed && direct.allowed) {
    const missKind = `${op.name}: ${proxy.status}`;
    return { kind: 'miss', missKind, documented: missKind in DOCUMENTED_MISSES };
  }
  if (sameEffect) return null;
  if (!proxy.allowed) return { kind: 'escalation', why: `refused, but left ${describe(proxyState)} where the file server left ${describe(directState)}` };
  return { kind: 'effect', why: `left ${describe(proxyState)}, the direct operation ${describe(directState)}` };
}

/** The touched paths' states without the encoded descriptor (its readable form says the same). */
function describe(states: PathState[]): string {
  return JSON.stringify(states.map((s) => s && { acl: s.acl, content: s.content, readonly: s.readonly }));
}

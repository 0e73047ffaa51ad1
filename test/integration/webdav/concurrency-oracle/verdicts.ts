/**
 * The concurrency oracle's findings for one cell, from the two verdicts and the end states of the cell's files:
 *  - data lost: the service left contents that are neither those before nor those of the operation done (an old
 *    destination gone with the source still there, a page cut or padded), said it succeeded but left the old
 *    contents, or refused and changed anything (content, owner, DACL, file id) — must be 0;
 *  - escalation: the service succeeded where the file server refused — must be 0;
 *  - refusal kind: both refused, for different reasons (403 ↔ ACCESS_DENIED, 423 ↔ SHARING_VIOLATION or a lock
 *    conflict; a 5xx never matches) — must be 0;
 *  - miss: the file server allowed, the service refused; reported by kind;
 *  - effect: both succeeded, but the ends differ (content, owner, DACL, file id); must be 0;
 *  - direct anomaly: the direct operation itself left neither state, or changed something while refused: then the
 *    oracle's yardstick is wrong, which must be 0 as well.
 */
import type { SmbShare } from '../../../../src/smb/index.js';
import { stateOf, type PathState } from '../write-oracle/effects.js';
import type { Verdict } from '../write-oracle/operations.js';
import type { CellPaths, ConcurrentOperation, Contents } from './operations.js';

/** A file's state with its file id as what it was before: `destination`, `source` or `new`. */
export type FileState = (NonNullable<PathState> & { id: string }) | null;
export interface CellState {
  destination: FileState;
  source: FileState;
}

/** The file ids of a cell's files before the operation, to name the ids found after it. */
export type Ids = Partial<Record<keyof CellPaths, string>>;

export async function cellState(admin: SmbShare, paths: CellPaths, idsBefore: Ids, name: (sid: string) => string): Promise<CellState> {
  const one = async (path: string): Promise<FileState> => {
    const state = await stateOf(admin, path, name);
    if (state === null) return null;
    const id = (await admin.stat(path)).fileId;
    const was = (Object.keys(idsBefore) as (keyof CellPaths)[]).find((k) => idsBefore[k] === id);
    return { ...state, id: was ?? 'new' };
  };
  const [destination, source] = await Promise.all([one(paths.destination), one(paths.source)]);
  return { destination, source };
}

export const contentsOf = (s: CellState): Contents => ({ destination: s.destination?.content ?? null, source: s.source?.content ?? null });

export type FindingKind = 'data lost' | 'escalation' | 'refusal kind' | 'miss' | 'effect' | 'direct anomaly';
export interface Finding {
  kind: FindingKind;
  why: string;
}

/** What a refusal means: the same words for an HTTP answer and an NT status. */
export function refusalKind(status: string): string {
  const code = status.split(' ')[0]!;
  if (code === '403' || status === 'STATUS_ACCESS_DENIED') return 'access denied';
  if (code === '423' || ['STATUS_SHARING_VIOLATION', 'STATUS_FILE_LOCK_CONFLICT', 'STATUS_LOCK_NOT_GRANTED'].includes(status)) return 'in use';
  if (/^5\d\d$/.test(code)) return `server error ${status}`;
  return status;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The states without the encoded descriptor (its readable form says the same), short enough to print. */
export function describe(s: CellState): string {
  const one = (f: FileState): unknown => f && { content: f.content, id: f.id, acl: f.acl };
  return JSON.stringify({ destination: one(s.destination), source: one(s.source) });
}

/** Data lost on one side: neither before nor done, done but answered refused (or the other way round), a refusal that changed something. */
function lossOf(op: ConcurrentOperation, verdict: Verdict, before: CellState, after: CellState): string | null {
  const now = contentsOf(after);
  const was = contentsOf(before);
  const done = op.done(was);
  if (!same(now, was) && !same(now, done)) return `left ${describe(after)}: neither before nor done`;
  if (verdict.allowed && !same(now, done)) return `answered ${verdict.status} but left the contents as they were`;
  if (!verdict.allowed && !same(after, before)) return `answered ${verdict.status} but changed ${describe(before)} into ${describe(after)}`;
  return null;
}

export function findingsOf(op: ConcurrentOperation, proxy: Verdict, direct: Verdict, states: { before: CellState; proxy: CellState; direct: CellState }): Finding[] {
  const findings: Finding[] = [];
  const lost = lossOf(op, proxy, states.before, states.proxy);
  if (lost) findings.push({ kind: 'data lost', why: lost });
  const anomaly = lossOf(op, direct, states.before, states.direct);
  if (anomaly) findings.push({ kind: 'direct anomaly', why: anomaly });
  if (proxy.allowed && !direct.allowed) findings.push({ kind: 'escalation', why: `the file server answered ${direct.status}` });
  if (!proxy.allowed && direct.allowed) findings.push({ kind: 'miss', why: `${op.name}: ${proxy.status}` });
  if (!proxy.allowed && !direct.allowed && refusalKind(proxy.status) !== refusalKind(direct.status)) {
    findings.push({ kind: 'refusal kind', why: `${proxy.status} where the file server answered ${direct.status}` });
  }
  if (proxy.allowed && direct.allowed && !same(states.proxy, states.direct)) {
    findings.push({ kind: 'effect', why: `left ${describe(states.proxy)}, the direct operation ${describe(states.direct)}` });
  }
  return findings;
}

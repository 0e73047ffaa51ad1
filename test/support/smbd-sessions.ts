// How many sessions the testbed's smbd holds for an account, as the server itself counts them (smbstatus),
// sampled while a test runs: what a bound on the service's SMB connections per account must keep small, whichever
// spelling of the account's name opened them. smbstatus names a session's user by its Unix id only (no domain
// accounts are known to this machine's NSS), which the DC's idmap.ldb maps to the account's SID.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { layout } from '../testbed/layout.js';
import type { TestbedEnv } from '../testbed/env.js';

const run = promisify(execFile);

/** smbd's sessions, counted by the Unix id of their user. */
async function sessionsByUid(env: TestbedEnv): Promise<Map<number, number>> {
  const { stdout } = await run('smbstatus', ['-s', env.samba.conf, '-b', '--json'], { maxBuffer: 64 * 1024 * 1024 });
  const status = JSON.parse(stdout) as { sessions?: Record<string, { uid: number }> };
  const counts = new Map<number, number>();
  for (const { uid } of Object.values(status.sessions ?? {})) counts.set(uid, (counts.get(uid) ?? 0) + 1);
  return counts;
}

/**
 * The Unix ids the DC gave these SIDs, for those that have one yet (the DC gives it at the account's first logon).
 * Looked up by the entry's name, CN=<SID>: a plain ldb does not compare a SID given as text with a stored one.
 */
async function uidsOf(sids: readonly string[]): Promise<Map<string, number>> {
  for (const sid of sids) if (!/^S-1-[0-9-]+$/.test(sid)) throw new Error(`not a SID: ${sid}`);
  const script = [
    'import ldb, sys',
    'db = ldb.Ldb()',
    'db.connect("tdb://" + sys.argv[1], flags=ldb.FLG_RDONLY)',
    'for sid in sys.argv[2:]:',
    '    try:',
    '        found = db.search(base="CN=" + sid, scope=ldb.SCOPE_BASE, attrs=["xidNumber"])',
    '    except ldb.LdbError as e:',
    '        if e.args[0] != ldb.ERR_NO_SUCH_OBJECT: raise',
    '        found = []',
    '    for m in found:',
    '        print(sid, str(m["xidNumber"]))',
  ].join('\n');
  const { stdout } = await run('/usr/bin/python3', ['-c', script, layout.samba.idmapDb, ...sids]);
  return new Map(stdout.trim().split('\n').filter((line) => line !== '').map((line) => {
    const [sid, uid] = line.split(' ');
    return [sid!, Number(uid)];
  }));
}

/** The sessions smbd holds now for the account with this SID (0 before its first logon, which gives it a uid). */
export async function smbdSessionsOf(env: TestbedEnv, sid: string): Promise<number> {
  const uid = (await uidsOf([sid])).get(sid);
  return uid === undefined ? 0 : (await sessionsByUid(env)).get(uid) ?? 0;
}

export interface SessionSampler {
  /** Stops sampling (after one last sample); resolves to the most sessions seen at once, per SID (0: none seen). */
  stop(): Promise<Map<string, number>>;
}

/** Samples smbd's sessions of the accounts `sids` every `everyMs` until stopped. */
export function sampleSmbdSessions(env: TestbedEnv, sids: readonly string[], everyMs = 500): SessionSampler {
  const most = new Map(sids.map((sid) => [sid, 0]));
  const uids = new Map<string, number>();
  let running = true;
  const sample = async () => {
    const sessions = await sessionsByUid(env);
    const unmapped = sids.filter((sid) => !uids.has(sid));
    const known = new Set(uids.values());
    if (unmapped.length > 0 && [...sessions.keys()].some((uid) => !known.has(uid))) {
      for (const [sid, uid] of await uidsOf(unmapped)) uids.set(sid, uid);
    }
    for (const [sid, uid] of uids) most.set(sid, Math.max(most.get(sid)!, sessions.get(uid) ?? 0));
  };
  const loop = (async () => {
    while (running) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    await sample();
  })();
  // A failed sample ends the loop; stop() reports it.
  loop.catch(() => undefined);
  return {
    async stop() {
      running = false;
      await loop;
      return most;
    },
  };
}

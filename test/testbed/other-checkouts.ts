// Only one testbed can own the loopback ports (445, 636, 9200). A testbed left
// running by another checkout of this repository (an earlier clone, a CI run)
// would make `up` fail here, so `up` stops it first — by the pids that testbed
// recorded itself, never anything it did not start. A test or benchmark started
// without `up` would talk to that other testbed with this one's env.json (the
// wrong shares on disk, the wrong passwords): readTestbedEnv() refuses that.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { inOurNetwork, listProcesses, processInfo, readPidFile, stopProcess, type ProcessInfo } from './processes.js';
import { note } from './progress.js';
import { testbedDir } from './layout.js';

/**
 * Command lines that name a testbed dir: Samba's children carry the config file
 * (the root process renames itself), Elasticsearch its home.
 */
const TESTBED_IN_CMDLINE = [/(\/\S+\/\.testbed)\/samba\/etc\/smb\.conf/, /-Des\.path\.home=(\/\S+\/\.testbed)\/elasticsearch\//];

/** Where a testbed dir records the pid of each server it started, and how that process looks (pids get reused). */
const SERVERS = [
  { name: 'samba', pidFile: 'samba/run/samba.pid', is: (info: ProcessInfo) => info.comm === 'samba' },
  { name: 'elasticsearch', pidFile: 'elasticsearch/es.pid', is: (info: ProcessInfo, dir: string) => info.cmdline.includes(`${dir}/elasticsearch/`) },
];

/** The dir with symbolic links resolved; as written when it does not exist (yet). */
function resolved(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** The testbed dirs of other checkouts whose servers run in this network namespace. */
export async function otherCheckoutsTestbeds(): Promise<string[]> {
  const ours = resolved(testbedDir);
  const others = new Set<string>();
  for (const info of await listProcesses()) {
    if (!inOurNetwork(info.pid)) continue;
    for (const pattern of TESTBED_IN_CMDLINE) {
      const dir = pattern.exec(info.cmdline)?.[1];
      if (dir && resolved(dir) !== ours) others.add(dir);
    }
  }
  return [...others];
}

export async function stopOtherCheckoutsTestbeds(): Promise<void> {
  for (const dir of await otherCheckoutsTestbeds()) {
    for (const server of SERVERS) {
      const pid = await readPidFile(path.join(dir, server.pidFile));
      const info = pid === undefined ? undefined : await processInfo(pid);
      if (!info || !server.is(info, dir)) continue;
      note(`stopping the ${server.name} of another checkout's testbed (${dir}, pid ${info.pid})`);
      await stopProcess(info.pid);
    }
  }
}

// Only one testbed can own the loopback ports (445, 636, 9200). A testbed left
// running by another checkout of this repository (an earlier clone, a CI run)
// would make `up` fail here, so `up` stops it first — by the pids that testbed
// recorded itself, never anything it did not start.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { listProcesses, readPidFile, stopProcess } from './processes.js';
import { note } from './progress.js';
import { testbedDir } from './layout.js';

/** How a testbed server's command line names its testbed dir, and where that dir keeps the pid. */
const SERVERS = [
  { name: 'samba', dirInCmdline: /(\/\S+\/\.testbed)\/samba\/etc\/smb\.conf/, pidFile: 'samba/run/samba.pid' },
  { name: 'elasticsearch', dirInCmdline: /-Des\.path\.home=(\/\S+\/\.testbed)\/elasticsearch\//, pidFile: 'elasticsearch/es.pid' },
] as const;

/** The dir with symbolic links resolved; as written when it does not exist (yet). */
function resolved(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

export async function stopOtherCheckoutsTestbeds(): Promise<void> {
  const ours = resolved(testbedDir);
  for (const info of await listProcesses()) {
    for (const server of SERVERS) {
      const dir = server.dirInCmdline.exec(info.cmdline)?.[1];
      if (!dir || resolved(dir) === ours) continue;
      // Only the process that testbed recorded as its server (children go with it).
      if ((await readPidFile(path.join(dir, server.pidFile))) !== info.pid) continue;
      note(`stopping the ${server.name} of another checkout's testbed (${dir}, pid ${info.pid})`);
      await stopProcess(info.pid);
    }
  }
}

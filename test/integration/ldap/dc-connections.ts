// How many LDAPS connections to the testbed DC are open, as the kernel of this network namespace sees them (ss),
// sampled while a test runs: what the DC would count, whoever in the service opened them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Established TCP connections to port 636 of process `pid` (all its threads), counted from the client's side. */
export async function openDcConnections(pid: number): Promise<number> {
  const { stdout } = await run('ss', ['-Htnp', 'state', 'established', '( dport = :636 )']);
  return stdout.split('\n').filter((line) => line.includes(`pid=${pid},`)).length;
}

/** Samples openDcConnections every `everyMs` until stopped; `stop` resolves to the most seen at once. */
export function sampleDcConnections(pid: number, everyMs = 20): { stop(): Promise<number> } {
  let most = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      most = Math.max(most, await openDcConnections(pid));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return most;
    },
  };
}

// How many LDAPS connections to the testbed DC are open, as the kernel of this network namespace sees them (ss),
// sampled while a test runs: what the DC would count, whoever in the service opened them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Established TCP connections to port 636 (each counted once, from the client's side). */
export async function openDcConnections(): Promise<number> {
  const { stdout } = await run('ss', ['-Htn', 'state', 'established', '( dport = :636 )']);
  return stdout.split('\n').filter((line) => line.trim() !== '').length;
}

/** Samples openDcConnections every `everyMs` until stopped; `stop` resolves to the most seen at once. */
export function sampleDcConnections(everyMs = 20): { stop(): Promise<number> } {
  let most = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      most = Math.max(most, await openDcConnections());
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

/**
 * A peer server of a benchmark as a process of its own (so that its CPU time is its own in /proc): a script that
 * takes its port as first argument and prints "listening" once it listens on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../test/support/ports.js';

export interface BareServer {
  child: ChildProcess;
  url: string;
}

/** Starts `script` (a path) with `node`, on a free port, with `args` after the port. */
export async function startBare(script: string, node: string, ...args: string[]): Promise<BareServer> {
  const port = await freePort();
  const child = spawn(node, [script, String(port), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('listening')) resolve(); });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

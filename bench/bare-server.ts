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

export interface BareOptions {
  /** The Node executable; default this process's. */
  node?: string;
  /** Node's own options, before the script (`--cpu-prof`). */
  nodeArgs?: string[];
  /** The script's arguments after the port. */
  args?: string[];
}

/** Starts `script` (a path) on a free port. */
export async function startBare(script: string, { node = process.execPath, nodeArgs = [], args = [] }: BareOptions = {}): Promise<BareServer> {
  const port = await freePort();
  const child = spawn(node, [...nodeArgs, script, String(port), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('listening')) resolve(); });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

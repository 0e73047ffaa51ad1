// Child commands, pid files and port/exit polling shared by the testbed components.
import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLines } from './files.js';

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Return a non-zero exit instead of throwing. */
  allowFailure?: boolean;
  timeoutMs?: number;
  /** Start in a new session, so that daemons it leaves behind outlive a kill of the caller's process group. */
  newSession?: boolean;
}

/** Runs a command without a shell and without stdin; throws with the command and its output tail on failure. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 10 * 60_000,
      detached: options.newSession ?? false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (err) => reject(new Error(`cannot run ${command}: ${err.message}`)));
    child.on('close', (code, signal) => {
      const result = { stdout, stderr, code: code ?? -1 };
      if (result.code === 0 || options.allowFailure) {
        resolve(result);
        return;
      }
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      reject(new Error(`${command} ${args.join(' ')} failed (${why}):\n${lastLines(stderr + stdout)}`));
    });
  });
}

export async function commandExists(command: string): Promise<boolean> {
  const { code } = await run('sh', ['-c', `command -v ${command}`], { allowFailure: true });
  return code === 0;
}

export async function readPidFile(file: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(file, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

interface StatFields {
  comm: string;
  state: string;
  ppid: number;
}

/** /proc/<pid>/stat is "pid (comm) state ppid ..."; comm may contain spaces and parentheses. */
function parseStat(stat: string): StatFields {
  const close = stat.lastIndexOf(')');
  const [state = '', ppid = '0'] = stat.slice(close + 2).split(' ');
  return { comm: stat.slice(stat.indexOf('(') + 1, close), state, ppid: Number.parseInt(ppid, 10) };
}

/** True while the process exists and is not a zombie (daemons are reparented to a pid 1 that may not reap them). */
export function isAlive(pid: number): boolean {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).state !== 'Z';
  } catch {
    return false;
  }
}

/** Whether a process shares our network namespace: one in another holds other ports and is none of our business. */
export function inOurNetwork(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`) === readlinkSync('/proc/self/ns/net');
  } catch {
    return false;
  }
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

/** A live process's identity; undefined for gone processes and zombies. */
export async function processInfo(pid: number): Promise<ProcessInfo | undefined> {
  try {
    const [stat, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
    ]);
    const { comm, state, ppid } = parseStat(stat);
    if (state === 'Z') return undefined;
    return { pid, ppid, comm, cmdline: cmdline.split('\0').join(' ').trim() };
  } catch {
    return undefined;
  }
}

export async function listProcesses(): Promise<ProcessInfo[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const infos = await Promise.all(pids.map(processInfo));
  return infos.filter((info): info is ProcessInfo => info !== undefined);
}

/**
 * The pid recorded in `pidFile` if that process is alive and `belongs` accepts it;
 * a pid file naming a dead or unrelated process (left by a crashed run) counts as absent.
 */
export async function recordedProcess(
  pidFile: string,
  belongs: (info: ProcessInfo) => boolean,
): Promise<number | undefined> {
  const pid = await readPidFile(pidFile);
  if (pid === undefined) return undefined;
  const info = await processInfo(pid);
  return info && belongs(info) ? pid : undefined;
}

export function isPortOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** Polls `check` until it returns true; `describeFailure` explains a timeout (e.g. with a log tail). */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  describeFailure: () => Promise<string> = async () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      const details = await describeFailure();
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${details ? `\n${details}` : ''}`);
    }
    await sleep(250);
  }
}

/** SIGTERM, wait for exit, SIGKILL as a last resort. Returns how the process ended. */
export async function stopProcess(pid: number, graceMs = 30_000): Promise<'stopped' | 'killed' | 'not running'> {
  if (!isAlive(pid)) return 'not running';
  process.kill(pid, 'SIGTERM');
  try {
    await waitUntil(`pid ${pid} to exit`, async () => !isAlive(pid), graceMs);
    return 'stopped';
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitUntil(`pid ${pid} to exit after SIGKILL`, async () => !isAlive(pid), 10_000);
    return 'killed';
  }
}

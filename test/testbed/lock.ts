// Serialises `up`/`down` across processes: several test runs may call `up` at the same moment.
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './processes.js';
import { note } from './progress.js';

async function tryCreate(lockFile: string): Promise<boolean> {
  try {
    const handle = await open(lockFile, 'wx');
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The holder's pid, or undefined while the holder has created but not yet written the file. */
async function holder(lockFile: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
  return Number.isInteger(pid) ? pid : undefined;
}

async function isStale(lockFile: string, pid: number | undefined): Promise<boolean> {
  if (pid !== undefined) return !isAlive(pid);
  const age = await stat(lockFile).then((info) => Date.now() - info.mtimeMs, () => Infinity);
  return age > 5000;
}

/** Runs `work` while holding `lockFile`; waits for a live holder, takes over from a dead one. */
export async function withLock<T>(lockFile: string, work: () => Promise<T>, timeoutMs = 15 * 60_000): Promise<T> {
  await mkdir(path.dirname(lockFile), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  while (!(await tryCreate(lockFile))) {
    const pid = await holder(lockFile);
    if (await isStale(lockFile, pid)) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lockFile} is still held by pid ${pid ?? '?'}`);
    if (!announced) note(`waiting for the testbed run of pid ${pid ?? '?'} holding ${lockFile}`);
    announced = true;
    await sleep(500);
  }
  try {
    return await work();
  } finally {
    await rm(lockFile, { force: true });
  }
}

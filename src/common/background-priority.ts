/**
 * Indexing is background work: the threads that do most of it (the smb-reader pool: listing and reading pages; the
 * indexer pool: rendering and writing them) lower their own scheduling priority, so that on a busy host the request threads (http-front) get the CPU
 * first. The reconciler's own thread does not: the change watch on it must react at once (actors/reconciler/main.ts).
 * Linux schedules threads one by one: setpriority() on a thread id changes only that thread.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Nice value of background threads (0 is normal, 19 the lowest priority). */
const BACKGROUND_NICE = 10;

/**
 * This thread's id on Linux (`/proc/thread-self` links to `<pid>/task/<tid>`), or undefined elsewhere: what `top -H`
 * and /proc/<pid>/task/<tid>/stat name the thread by.
 */
export function osThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Lowers the calling thread's priority; false where that is not possible (another OS, no permission). */
export function runAsBackgroundThread(): boolean {
  const tid = osThreadId();
  if (tid === undefined) return false;
  try {
    setPriority(tid, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}

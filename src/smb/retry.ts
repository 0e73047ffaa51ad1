// An SMB operation tried again while the file server refuses it for a state that passes by itself (another client
// holding a file or a folder for a moment), with growing waits between the attempts.
import { setTimeout as sleep } from 'node:timers/promises';
import { SmbError, type SmbErrorCode } from './errors.js';

/**
 * Runs `attempt`, and again after each wait of `waitsMs` while it fails with an SmbError of `code`; the last
 * attempt's failure is thrown, whatever it is.
 */
export async function retryWhileRefused<T>(attempt: () => Promise<T>, code: SmbErrorCode, waitsMs: readonly number[]): Promise<T> {
  for (const wait of waitsMs) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof SmbError && err.code === code)) throw err;
      await sleep(wait);
    }
  }
  return attempt();
}

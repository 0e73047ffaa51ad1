/**
 * The builds of the service a bench compares: this one, and an earlier one checked out and built elsewhere, named by
 * an environment variable (the host's load drifts, so builds are only compared within one run); and a service of one
 * of them, set up to measure its indexing pipeline.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { FILEPROXY_CLI } from '../../test/support/cli-path.js';
import { startService, type RunningService } from '../../test/support/service.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';

/** A build of the service, by its command line. */
export interface Build {
  label: string;
  cli: string;
}

export const THIS_BUILD: Build = { label: 'this build', cli: FILEPROXY_CLI };

/** The checkout `variable` names (its `dist/` built there), as an earlier build; undefined when it names none. */
export function baselineBuild(variable: string): Build | undefined {
  const checkout = process.env[variable];
  if (checkout === undefined) return undefined;
  const commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  return { label: `before (${commit})`, cli: join(checkout, 'dist/src/cli/main.js') };
}

/**
 * `work` with a service of `build` (change watch off, no timed pass, `workers` when given), once its first pass has
 * indexed what the index lacks (all the seeded pages, the first time; not timed); the service is stopped afterwards.
 */
export async function withService<T>(build: Build, workers: { smb_readers: number; indexers: number } | null, work: (service: RunningService) => Promise<T>): Promise<T> {
  const started = Date.now();
  // Pace `fast`: the pools' own rate, not the pacer's (the default `balanced` holds the reads back whenever the
  // fronts' event loops wait, which on 2 cores they do while the pools work).
  const service = await startService({ reconciler: { interval: '24h', watch: false, pace: 'fast' }, ...(workers === null ? {} : { workers }) }, {}, build.cli);
  try {
    await passAfter(service, started, 600_000);
    return await work(service);
  } finally {
    await service.stop();
  }
}

/**
 * The builds of the service a bench compares: this one, and an earlier one checked out and built elsewhere, named by
 * an environment variable (the host's load drifts, so builds are only compared within one run).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { FILEPROXY_CLI } from '../../test/support/cli-path.js';

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

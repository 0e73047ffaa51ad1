// The version line of `fileproxy --version` and of doctor's first line.
import { packageVersion } from '../common/package-version.js';

/** The version as operators see it: `fileproxy <version> (Node.js <version>)`. */
export function versionLine(): string {
  return `fileproxy ${packageVersion()} (Node.js ${process.version})`;
}

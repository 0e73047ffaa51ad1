// The service's version: the one of package.json, which the checkout and the Debian package (usr/lib/edu-fileproxy)
// both keep two folders above dist/src/cli/.
import { readFileSync } from 'node:fs';

/** The version as operators see it: `fileproxy <version> (Node.js <version>)`. */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `fileproxy ${pkg.version} (Node.js ${process.version})`;
}

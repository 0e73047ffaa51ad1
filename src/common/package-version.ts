// The service's version: the one of package.json, which the checkout and the Debian package (usr/lib/edu-fileproxy)
// both keep two folders above dist/src/<folder>/.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

// The service's version: the one of package.json at the installation's root (the checkout, or usr/lib/edu-fileproxy
// of the Debian package).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installRoot } from './install-root.js';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(installRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

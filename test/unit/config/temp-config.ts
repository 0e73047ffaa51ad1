// Test helpers: config texts written to throw-away files, and paths into the repository.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from '../../support/scratch-dir.js';

/** Repository root, from dist/test/unit/config/ (compiled) back up four levels. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export function repoPath(relative: string): string {
  return join(REPO_ROOT, relative);
}

/** Writes `text` to a fresh temp directory as `name` (default config.yml) and returns the file's path. */
export function writeTempFile(text: string, name = 'config.yml'): string {
  const file = join(scratchDir('fileproxy-config-'), name);
  writeFileSync(file, text);
  return file;
}

/** A current (1.1.7+) config with only the required keys. */
export const MINIMAL_CONFIG = `smb:
  server: fs1.schule.local
  domain: SCHULE
  shares:
    - name: schule
  indexer_service_account:
    user: svc-indexer
ldap:
  url: ldaps://dc1.schule.local
  base_dn: DC=schule,DC=local
admin:
  user: fpadmin
  groups: [Schul-Admins]
elasticsearch:
  enabled: true
`;

// Where the testbed keeps its state. Everything lives under the repository's git-ignored `.testbed/`
// (and `.cache/` for downloads), located relative to this compiled file: dist/test/testbed/layout.js.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));
export const testbedDir = path.join(repoRoot, '.testbed');
export const cacheDir = path.join(repoRoot, '.cache');

export const layout = {
  envFile: path.join(testbedDir, 'env.json'),
  lockFile: path.join(testbedDir, 'lock'),
  configFile: path.join(testbedDir, 'config.yml'),
  indexerSecretFile: path.join(testbedDir, 'indexer.secret'),
  /** For Samba's clients in the NTLM-off mode (KRB5_CONFIG); see kerberos.ts. */
  krb5Config: path.join(testbedDir, 'krb5.conf'),
  dataDir: path.join(testbedDir, 'data'),
  sharesDir: path.join(testbedDir, 'shares'),
  samba: {
    dir: path.join(testbedDir, 'samba'),
    conf: path.join(testbedDir, 'samba', 'etc', 'smb.conf'),
    pidDir: path.join(testbedDir, 'samba', 'run'),
    pidFile: path.join(testbedDir, 'samba', 'run', 'samba.pid'),
    /** Mounted over /run/samba for the DC's processes (see ensureSambaRunning). */
    runtimeDir: path.join(testbedDir, 'samba', 'runtime'),
    logDir: path.join(testbedDir, 'samba', 'log'),
    tlsDir: path.join(testbedDir, 'samba', 'private', 'tls'),
    samDb: path.join(testbedDir, 'samba', 'private', 'sam.ldb'),
    /** The DC's SID-to-Unix-id map (smbstatus names a session's user by its Unix id). */
    idmapDb: path.join(testbedDir, 'samba', 'private', 'idmap.ldb'),
    // Written last by provisioning; its absence means a run died half-way and the dir is rebuilt.
    provisionedMarker: path.join(testbedDir, 'samba', 'provisioned'),
    accountsFile: path.join(testbedDir, 'samba', 'accounts.json'),
    seedStamp: path.join(testbedDir, 'samba', 'seed.json'),
    // Copy of the DC's CA outside the root-only private dir, so non-root clients can verify LDAPS.
    caCopy: path.join(testbedDir, 'ldap-ca.pem'),
  },
  elasticsearch: {
    dir: path.join(testbedDir, 'elasticsearch'),
    pidFile: path.join(testbedDir, 'elasticsearch', 'es.pid'),
    dataDir: path.join(testbedDir, 'elasticsearch', 'data'),
    logDir: path.join(testbedDir, 'elasticsearch', 'logs'),
    launcherLog: path.join(testbedDir, 'elasticsearch', 'launcher.log'),
  },
} as const;

// Runs every doctor check against one config file.
import { ConfigError, loadConfig } from '../config/index.js';
import { fail, ok, type CheckResult } from './check.js';
import {
  checkAdminGroups, checkElasticsearch, checkFreeRam, checkLdapBind, checkSecretFile, checkShares, checkTrustedCallers,
} from './checks.js';
import { checkKerberos } from './kerberos.js';

/** Yields each result as soon as it is known, so a slow check does not hide earlier ones. */
export async function* runDoctor(configFile: string): AsyncGenerator<CheckResult> {
  let config;
  try {
    const loaded = loadConfig(configFile);
    config = loaded.config;
    yield ok('config', `${configFile} is valid${loaded.warnings.length ? ` (${loaded.warnings.length} warning(s): fileproxy check-config shows them)` : ''}`);
  } catch (err) {
    const detail = err instanceof ConfigError ? err.message : (err as Error).message;
    yield fail('config', detail, `correct ${configFile}; fileproxy check-config --config ${configFile} repeats these messages`);
    return;
  }
  const secret = checkSecretFile(config);
  yield secret.result;
  const ldap = await checkLdapBind(config, secret.password);
  yield ldap.result;
  try {
    yield await checkAdminGroups(config, ldap.directory);
    yield* await checkTrustedCallers(config, ldap.directory);
    yield* await checkKerberos(config, secret.password, ldap.directory);
  } finally {
    await ldap.directory?.close(); // its kept-open lookup connections would hold the process for a while
  }
  yield* await checkShares(config, secret.password);
  yield* await checkElasticsearch(config);
  yield checkFreeRam();
}

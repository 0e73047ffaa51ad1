// The ldap-resolver actor: works out who a wiki caller is (LDAPS bind, group
// names to SIDs, the SID set and visible shares a search filters with) off the
// request thread, owns the per-share wiki visibility settings, and the login
// throttle that every thread consults before a login asks the directory or an
// SMB server (one table for all HTTP threads; src/auth/login-throttle.ts).
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { LoginAccounts } from '../../src/auth/login-accounts.js';
import { localLoginGuard } from '../../src/auth/login-guard.js';
import { LoginThrottle } from '../../src/auth/login-throttle.js';
import type { Config } from '../../src/config/index.js';
import { DirectoryError, LdapConfigError } from '../../src/ldap/connection.js';
import type { Directory } from '../../src/ldap/directory.js';
import { directoryFromConfig, loginDomain } from '../../src/ldap/from-config.js';
import type { LdapResolverProtocol } from './protocol.js';
import { ldapResolverMetrics } from './metrics.js';
import type { ActorContextOf } from '../kinds.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { ViewerResolver } from '../../src/viewer/viewer.js';
import { VIEWER_EPOCH_WORDS, VISIBILITY_GENERATION } from '../../src/viewer/viewer-cache.js';
import { VisibilityFile } from '../../src/viewer/visibility-file.js';
import { WikiVisibilitySettings } from '../../src/viewer/visibility.js';

/** A verified wiki login, and a user looked up for a trusted caller, is trusted this long (at most `ldap.cache_ttl`). */
const LOGIN_TTL_MS = 60_000;

/**
 * The directory for wiki callers: user binds, and group lookups as the indexer account. Null (every caller sees
 * nothing) without `ldap.base_dn`, without the indexer password (wiki off) or with an unusable `ldap` block.
 */
function wikiDirectory(config: Config, indexerPassword: string | undefined, log: Logger): Directory | null {
  const { ldap } = config;
  if (indexerPassword === undefined) return null;
  if (ldap.base_dn === undefined) {
    log.warn('ldap.base_dn is not set: group SIDs cannot be resolved, so wiki search returns no hits');
    return null;
  }
  try {
    return directoryFromConfig(config, indexerPassword);
  } catch (err) {
    if (!(err instanceof LdapConfigError)) throw err;
    log.error(`wiki callers cannot be resolved, so wiki search returns no hits: ${err.message}`);
    return null;
  }
}

runActor(async (ctx: ActorContextOf<'ldap-resolver'>) => {
  const { config, log } = ctx;
  const visibility = await WikiVisibilitySettings.open(
    new VisibilityFile(config.storage.data_dir),
    config.smb.shares.map((share) => share.name),
  );
  const directory = wikiDirectory(config, ctx.secrets.indexerPassword, log);
  const { auth } = config;
  const throttle = new LoginThrottle({
    maxFailures: auth.max_failures,
    maxAddressFailures: auth.max_address_failures,
    trustedAddresses: auth.trusted_addresses,
    lockoutMs: auth.lockout,
    failureWindowMs: auth.failure_window,
  });
  const accounts = new LoginAccounts(directory, { ttlMs: config.ldap.cache_ttl, negativeTtlMs: config.ldap.negative_cache_ttl });
  const guard = localLoginGuard(throttle, accounts);
  const viewers = new ViewerResolver({
    directory,
    callers: {
      trustedCallers: config.wiki.trusted_callers,
      indexerAccount: config.smb.indexer_service_account.user,
      adminAccount: config.admin.user,
      adminGroups: config.admin.groups,
      domain: loginDomain(config),
      mayNameAdmins: config.wiki.trusted_callers_may_name_admins,
    },
    guard,
    visibleShares: (groups) => visibility.visibleShares(groups),
    loginTtlMs: Math.min(LOGIN_TTL_MS, config.ldap.cache_ttl),
    groupTtlMs: config.ldap.cache_ttl,
    negativeGroupTtlMs: config.ldap.negative_cache_ttl,
  });

  // The fronts reuse viewer answers until this generation changes (src/viewer/viewer-cache.ts).
  const epoch = new SharedArrayBuffer(VIEWER_EPOCH_WORDS * Int32Array.BYTES_PER_ELEMENT);
  const handlers: LdapResolverProtocol = {
    viewer: (query) => viewers.resolveReusable(query),
    viewerEpoch: async () => epoch,
    listVisibility: async () => visibility.list(),
    setVisibility: async (share, settings) => {
      const changed = await visibility.set(share, settings);
      Atomics.add(new Int32Array(epoch), VISIBILITY_GENERATION, 1);
      return changed;
    },
    logonAccount: async (query) => {
      if (directory === null) return { unconfigured: 'no directory to ask (ldap.base_dn and the indexer account\'s password are needed)' };
      try {
        return { account: await directory.logonAccount(query) };
      } catch (err) {
        if (err instanceof DirectoryError && err.kind === 'invalid_credentials') return { account: null };
        if (err instanceof DirectoryError) return { unavailable: err.message };
        throw err;
      }
    },
    admitLogin: (attempt) => guard.admit(attempt),
    settleLogin: async (counted, outcome) => guard.settle(counted, outcome),
  };
  const health = () => ({
    resolvesViewers: directory !== null, serviceConnectionsOpened: directory?.openedServiceConnections ?? 0, ...viewers.stats, ...throttle.stats, ...accounts.stats,
  });
  const registry = new Registry();
  registerStatMetrics(registry, health, ldapResolverMetrics);
  return { handlers: servingMetrics(handlers, registry), health };
});

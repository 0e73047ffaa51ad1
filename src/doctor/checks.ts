// The checks of `fileproxy doctor`, in the order an operator sets things up.
import { freemem } from 'node:os';
import { readIndexerPassword, type Config } from '../config/index.js';
import { directoryFromConfig } from '../ldap/from-config.js';
import type { Directory } from '../ldap/directory.js';
import { DEFAULT_ALIAS } from '../search/mapping.js';
import { FileNotifyChange, SmbClient, SmbPool, type SmbShare } from '../smb/index.js';
import { fail, ok, skip, type CheckResult } from './check.js';
import { isLoopback, listeningAddresses } from './listeners.js';

/** The spec's prerequisite: 1 GB for the search engine plus headroom. */
export const MIN_FREE_RAM = 1.5 * 1024 ** 3;

export function checkSecretFile(config: Config): { result: CheckResult; password?: string } {
  const name = 'indexer secret';
  const file = config.smb.indexer_service_account.password_file;
  try {
    const password = readIndexerPassword(config);
    return { result: ok(name, `${file} has mode 600 and a password`), password };
  } catch (err) {
    return { result: fail(name, (err as Error).message, `put the password of ${config.smb.indexer_service_account.user} into ${file} and run chmod 600 ${file}`) };
  }
}

export async function checkLdapBind(config: Config, password: string | undefined): Promise<{ result: CheckResult; directory?: Directory }> {
  const name = 'LDAP';
  const user = config.smb.indexer_service_account.user;
  if (config.ldap.base_dn === undefined) {
    return { result: fail(name, 'ldap.base_dn is not set: group SIDs cannot be resolved and wiki search returns no hits', 'set ldap.base_dn, e.g. DC=schule,DC=local') };
  }
  if (password === undefined) return { result: skip(name, 'no indexer password to bind with') };
  try {
    const directory = directoryFromConfig(config, password);
    await directory.authenticateUser(user, password);
    return { result: ok(name, `LDAPS bind as ${user} at ${config.ldap.url} under ${config.ldap.base_dn}`), directory };
  } catch (err) {
    return { result: fail(name, `bind as ${user} at ${config.ldap.url} failed: ${(err as Error).message}`, 'check ldap.url, ldap.tls (CA file, server name) and the indexer password') };
  }
}

export async function checkAdminGroups(config: Config, directory: Directory | undefined): Promise<CheckResult> {
  const name = 'global-admin groups';
  if (!directory) return skip(name, 'needs a working LDAP bind');
  try {
    const resolved = await directory.resolveGroupSids(config.admin.groups);
    const missing = config.admin.groups.filter((g) => !resolved.has(g));
    if (missing.length > 0) {
      return fail(name, `not found under ${config.ldap.base_dn}: ${missing.join(', ')}`, 'correct admin.groups to existing directory groups');
    }
    return ok(name, `${config.admin.groups.join(', ')} resolve to SIDs`);
  } catch (err) {
    return fail(name, (err as Error).message, 'check the directory connection');
  }
}

const ACCOUNT_STATE_FIXES = {
  disabled: 'enable the account in the directory',
  locked: 'unlock the account in the directory (and find out who mistyped its password)',
  expired: 'extend or remove the account\'s expiry date in the directory',
  password_expired: 'set a new password for the account and give it to the portal',
} as const;

/**
 * Each account of `wiki.trusted_callers` exists under `ldap.base_dn` and the directory would let it log on (enabled,
 * not locked or expired, password not expired), read with the indexer account. Its password is not checked here:
 * it lives only on the portal, and the service verifies it with an LDAPS bind on the first call (401 when wrong).
 */
export async function checkTrustedCallers(config: Config, directory: Directory | undefined): Promise<CheckResult[]> {
  const callers = config.wiki.trusted_callers;
  if (callers.length === 0) return [];
  if (!directory) return [skip('trusted callers', 'needs a working LDAP bind')];
  return Promise.all(callers.map(async (caller) => {
    const name = `trusted caller ${caller}`;
    try {
      const user = await directory.lookupUser(caller);
      if (user === null) {
        return fail(name, `no user ${caller} under ${config.ldap.base_dn}`, 'create the portal\'s service account there, or correct wiki.trusted_callers');
      }
      if (user.state !== 'active') return fail(name, `the directory refuses logons of ${user.account}: ${user.state.replace('_', ' ')}`, ACCOUNT_STATE_FIXES[user.state]);
      return ok(name, `${user.account} exists and may log on; its password is checked by an LDAPS bind on its first call`);
    } catch (err) {
      return fail(name, (err as Error).message, 'check the directory connection, and that the name is a sAMAccountName or userPrincipalName');
    }
  }));
}

export async function checkShares(config: Config, password: string | undefined): Promise<CheckResult[]> {
  const { smb } = config;
  if (password === undefined) return [skip('SMB shares', 'no indexer password to log on with')];
  const client = new SmbClient(new SmbPool({ minDialect: smb.min_dialect, requireEncryption: smb.require_encryption }));
  try {
    return await Promise.all(smb.shares.map(async (entry) => {
      const host = entry.server ?? smb.server!;
      const name = `share //${host}/${entry.name}`;
      try {
        const share = client.share({ host, port: smb.port, domain: smb.domain, user: smb.indexer_service_account.user, password, share: entry.name });
        const entries = await share.readdir('');
        const readable = `readable by ${smb.indexer_service_account.user} (${entries.length} entries at the root)`;
        if (!config.reconciler.watch) return ok(name, readable);
        const refusal = await watchRefusal(share);
        if (refusal !== null) {
          return fail(name, `${readable}, but the server does not take a change watch (CHANGE_NOTIFY): ${refusal}`,
            'set reconciler.watch: false (pages written over SMB then wait for the next reconciler pass), or enable change notify on the server');
        }
        return ok(name, `${readable}; takes a change watch (CHANGE_NOTIFY)`);
      } catch (err) {
        const code = (err as { code?: string }).code;
        const fix = code === 'ACCESS_DENIED' || code === 'LOGON_FAILURE'
          ? `give ${smb.indexer_service_account.user} read access to the share (and check its password)`
          : `check that ${host} is reachable on port ${smb.port} and the share exists`;
        return fail(name, (err as Error).message, fix);
      }
    }));
  } finally {
    await client.close();
  }
}

/** How long doctor waits for the server to take a change watch. */
const WATCH_CHECK_MS = 5_000;

/** Null when the server takes a tree watch on the share root (its interim answer came), else why not. */
async function watchRefusal(share: SmbShare): Promise<string | null> {
  const controller = new AbortController();
  let armed = false;
  const timer = setTimeout(() => controller.abort(), WATCH_CHECK_MS);
  try {
    await share.watch('', {
      filter: FileNotifyChange.FILE_NAME | FileNotifyChange.DIR_NAME,
      signal: controller.signal,
      onArmed: () => {
        armed = true;
        controller.abort();
      },
      onChanges: () => undefined,
    });
    return armed ? null : `no answer within ${WATCH_CHECK_MS / 1000} s`;
  } catch (err) {
    return (err as Error).message;
  } finally {
    clearTimeout(timer);
  }
}

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

export async function checkElasticsearch(config: Config): Promise<CheckResult[]> {
  const { elasticsearch } = config;
  if (!elasticsearch.enabled) return [skip('Elasticsearch', 'elasticsearch.enabled is false: the wiki feature is off')];
  const base = elasticsearch.url.replace(/\/$/, '');
  const results: CheckResult[] = [];
  try {
    const { body } = await getJson(`${base}/_cluster/health`);
    const status = (body as { status?: string } | undefined)?.status;
    results.push(status === 'green' || status === 'yellow'
      ? ok('Elasticsearch health', `${base} is ${status}`)
      : fail('Elasticsearch health', `${base} reports status ${status ?? 'unknown'}`, 'look at the sidecar log: docker compose -f compose.yml logs elasticsearch'));
  } catch (err) {
    results.push(fail('Elasticsearch health', `${base} unreachable: ${(err as Error).message}`, 'start the sidecar: docker compose -f compose.yml up -d'));
  }
  results.push(checkNotExposed(Number(new URL(base).port || 9200)));
  try {
    const { status } = await getJson(`${base}/_alias/${DEFAULT_ALIAS}`);
    results.push(status === 200
      ? ok('wiki index', `alias ${DEFAULT_ALIAS} present`)
      : fail('wiki index', `alias ${DEFAULT_ALIAS} missing`, 'start the file proxy once (it creates the index), or run fileproxy reindex --all'));
  } catch (err) {
    results.push(skip('wiki index', `cannot ask Elasticsearch: ${(err as Error).message}`));
  }
  return results;
}

/** Security is off in the sidecar, so a listener beyond loopback is a hard failure. */
export function checkNotExposed(port: number, listening = listeningAddresses(port)): CheckResult {
  const name = 'Elasticsearch exposure';
  const exposed = listening.filter((a) => !isLoopback(a));
  if (exposed.length > 0) {
    return fail(name, `port ${port} is listened on ${exposed.join(', ')}; security is disabled, so anyone who reaches it can read and change the index`, `publish it on loopback only ("127.0.0.1:${port}:${port}" in compose.yml) and restart the sidecar`);
  }
  return listening.length > 0
    ? ok(name, `port ${port} listened on loopback only (${listening.join(', ')})`)
    : skip(name, `no local listener on port ${port} (published by packet filter rules?); check them by hand`);
}

export function checkFreeRam(free = freemem()): CheckResult {
  const gib = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
  return free >= MIN_FREE_RAM
    ? ok('free RAM', `${gib(free)} free (at least ${gib(MIN_FREE_RAM)} needed)`)
    : fail('free RAM', `${gib(free)} free, at least ${gib(MIN_FREE_RAM)} needed (1 GB for the search engine plus headroom)`, 'free memory or give the host more RAM');
}

// The checks of `fileproxy doctor`, in the order an operator sets things up.
import { freemem } from 'node:os';
import { readElasticsearchSecrets, readIndexerKeytab, readIndexerPassword, type Config } from '../config/index.js';
import { directoryFromConfig } from '../ldap/from-config.js';
import { IndexerShares } from '../logon/indexer-shares.js';
import { smbClientFromConfig } from '../logon/smb-client.js';
import { SmbLogons } from '../logon/smb-logons.js';
import type { Directory } from '../ldap/directory.js';
import type { Client, estypes } from '@elastic/elasticsearch';
import { searchClientFromConfig, type SearchConnection } from '../search/client.js';
import { explainSearchFailure, type SearchFailureKind } from '../search/search-failure.js';
import { FileNotifyChange, type SmbShare } from '../smb/index.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';
import { isLoopback, listeningAddresses } from './listeners.js';
import { PROXY_AGREEMENT, proxyAgreement } from './proxy-agreement.js';
import { announcementsIndex, readAnnouncements } from './proxy-announcement.js';

/** The spec's prerequisite: 1 GB for the search engine plus headroom. */
const MIN_FREE_RAM = 1.5 * 1024 ** 3;

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
  const client = smbClientFromConfig(smb);
  let shares: IndexerShares | Error;
  try {
    shares = new IndexerShares(client, new SmbLogons(config), smb.port, { indexerPassword: password, indexerKeytab: readIndexerKeytab(config) });
  } catch (err) {
    // An unreadable keytab fails each share's check with its reason, as a refused logon would.
    shares = err as Error;
  }
  try {
    return await Promise.all(smb.shares.map(async (entry) => {
      const host = entry.server ?? smb.server!;
      const name = `share //${host}/${entry.name}`;
      try {
        if (shares instanceof Error) throw shares;
        const share = shares.get(host, entry.name);
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
    await share.watch({
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

/** The config's Elasticsearch connection; the secret files are read here, so a bad one is a failure line. */
function searchConnection(config: Config): { connection?: SearchConnection; result?: CheckResult } {
  try {
    return { connection: { nodes: config.elasticsearch.nodes, ...readElasticsearchSecrets(config) } };
  } catch (err) {
    return { result: fail('Elasticsearch credentials', (err as Error).message, 'correct the files elasticsearch.auth and elasticsearch.tls name (a secret: mode 600, one line; the CA: its certificate in PEM)') };
  }
}

/** A node without TLS or credentials: only its own host may reach it. */
function isUnsecured(node: string, connection: SearchConnection): boolean {
  return connection.auth === undefined || new URL(node).protocol === 'http:';
}

export async function checkElasticsearch(config: Config): Promise<CheckResult[]> {
  const { elasticsearch } = config;
  if (!elasticsearch.enabled) return [skip('Elasticsearch', 'elasticsearch.enabled is false: the wiki feature is off')];
  const { connection, result } = searchConnection(config);
  if (connection === undefined) return [result!];
  const results = await Promise.all(connection.nodes.map((node) => checkNode(node, connection)));
  const client = searchClientFromConfig(elasticsearch, connection, 'doctor');
  try {
    results.push(await checkClusterHealth(client, elasticsearch.index.number_of_replicas));
    results.push(...connection.nodes.filter((node) => isUnsecured(node, connection)).map(checkUnsecuredNode));
    const alias = elasticsearch.index_prefix;
    try {
      results.push(await client.indices.existsAlias({ name: alias })
        ? ok('wiki index', `alias ${alias} present`)
        : fail('wiki index', `alias ${alias} missing`, 'start the file proxy once (it creates the index), or run fileproxy reindex --all'));
    } catch (err) {
      results.push(unanswered('wiki index', `alias ${alias}`, err));
    }
    results.push(...await checkProxyAgreement(client, config));
  } finally {
    await client.close();
  }
  return results;
}

/**
 * The line of a check whose question Elasticsearch did not answer. A refused login or certificate already failed the
 * node lines; a missing privilege on `what` shows only here.
 */
function unanswered(name: string, what: string, err: unknown): CheckResult {
  const { kind, message } = explainSearchFailure(err);
  return kind === 'privilege' ? fail(name, `${what}: ${message}`, ACCESS_FIXES.privilege!) : skip(name, `cannot ask Elasticsearch: ${message}`);
}

/** Whether the running proxies of the same shares agree on their shared-state settings, as they announced them. */
async function checkProxyAgreement(client: Client, config: Config): Promise<CheckResult[]> {
  const index = announcementsIndex(config);
  try {
    const { recent, unreadable } = await readAnnouncements(client, index, Date.now());
    return proxyAgreement(recent, unreadable);
  } catch (err) {
    return [unanswered(PROXY_AGREEMENT, `index ${index}`, err)];
  }
}

/** The fix of a node that answered but could not be used: its certificate, the credentials, the account's rights. */
const ACCESS_FIXES: Partial<Record<SearchFailureKind, string>> = {
  certificate: 'set elasticsearch.tls.ca_file to the PEM of the CA that signed the nodes\' HTTP certificates (elasticsearch-certutil wrote it as ca.crt; a node that set up security itself has config/certs/http_ca.crt), and name the nodes in elasticsearch.nodes as their certificates do',
  credentials: 'check elasticsearch.auth: the user and the password in its password_file, or the encoded API key in api_key_file (not expired, not invalidated)',
  privilege: 'give the account or API key the cluster privilege monitor and all privileges on the indices <index_prefix>* (README, More than one machine)',
};

/** The failure line of a call that failed with `err`: `down` and `startFix` unless the node answered but refused. */
function searchFailed(name: string, err: unknown, down: string, startFix: string): CheckResult {
  const { kind, message } = explainSearchFailure(err);
  return kind === 'other' ? fail(name, `${down}: ${message}`, startFix) : fail(name, message, ACCESS_FIXES[kind]!);
}

/** Each configured node answers on its own (the client would hide a dead one behind the others). */
async function checkNode(node: string, connection: SearchConnection): Promise<CheckResult> {
  const name = `Elasticsearch node ${node}`;
  const client = searchClientFromConfig({ nodes: [node] }, connection, 'doctor', { maxRetries: 0 });
  try {
    const info = await client.nodes.info({ node_id: '_local', metric: '_none' });
    const self = Object.values(info.nodes)[0];
    return ok(name, `answers: node ${self?.name}, Elasticsearch ${self?.version}, cluster ${info.cluster_name}`);
  } catch (err) {
    return searchFailed(name, err, 'does not answer', connection.nodes.length > 1
      ? 'start the node again, or remove it from elasticsearch.nodes; searches go to the other nodes meanwhile'
      : 'start the sidecar: docker compose -f compose.yml up -d');
  } finally {
    await client.close();
  }
}

/** Green is fine; yellow is a warning, with the replica setting as the fix when the nodes cannot hold the copies. */
export async function checkClusterHealth(client: Client, replicas: number): Promise<CheckResult> {
  const name = 'Elasticsearch health';
  let health: estypes.ClusterHealthResponse;
  try {
    health = await client.cluster.health();
  } catch (err) {
    return searchFailed(name, err, 'unreachable', 'start the sidecar (docker compose -f compose.yml up -d) or the cluster\'s nodes');
  }
  const { status, cluster_name: cluster, number_of_data_nodes: nodes, unassigned_shards: unassigned } = health;
  const summary = `cluster ${cluster} is ${status} with ${nodes} data node(s)`;
  if (status === 'green') return ok(name, summary);
  if (status === 'red') {
    return fail(name, `${summary}: a primary shard is not assigned, some pages cannot be searched or written`, 'look at the nodes\' logs; GET _cluster/allocation/explain names the shard and why');
  }
  if (replicas > nodes - 1) {
    return warn(name, `${summary}: elasticsearch.index.number_of_replicas is ${replicas}, but ${nodes} node(s) hold at most ${nodes - 1} replica(s), so ${unassigned} shard copies stay unassigned`,
      `set elasticsearch.index.number_of_replicas: ${Math.max(0, nodes - 1)} and apply it to the index (PUT <alias>/_settings {"index.number_of_replicas": ${Math.max(0, nodes - 1)}}), or add nodes`);
  }
  return warn(name, `${summary}: ${unassigned} shard copies not assigned yet (a node joining or recovering)`, 'wait for the cluster to recover; GET _cluster/allocation/explain says why a copy stays unassigned');
}

/** A node without TLS or credentials must be this host's own, listened on loopback only. */
function checkUnsecuredNode(node: string): CheckResult {
  const url = new URL(node);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isLoopback(host) && host !== 'localhost') {
    return fail('Elasticsearch exposure', `${node} is reached without TLS and credentials from another host: anyone on that network can read and change the index`,
      'run the sidecar on this host on loopback, or turn security on in the cluster and set elasticsearch.auth, elasticsearch.tls and https node URLs');
  }
  return checkNotExposed(Number(url.port || 9200));
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

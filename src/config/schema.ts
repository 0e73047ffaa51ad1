// The whole config.yml as one schema. Sections and most keys have defaults, so a small file is enough;
// objects are strict so that unknown keys are reported (as warnings, see load.ts).
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import * as z from 'zod';
import {
  absolutePath,
  accountName,
  distinguishedName,
  duration,
  host,
  intBetween,
  ipAddress,
  nonEmptyString,
  port,
  size,
  urlWithScheme,
} from './fields.js';
import { DIALECT_NAMES } from '../smb/index.js';
import { parseDnsServer } from '../kerberos/kdc-dns.js';
import { PACES } from '../pacing/pacer.js';

export const DEFAULT_INDEXER_PASSWORD_FILE = '/etc/edu-fileproxy/indexer.secret';
const SMB_AUTH_MODES = ['negotiate', 'kerberos', 'ntlm'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const TLS_FILE_MISSING = 'required when http.tls is set (it needs both cert_file and key_file)';

const httpSection = z.strictObject({
  host: host().default('127.0.0.1'),
  port: port().default(8080),
  tls: z
    .strictObject({
      cert_file: absolutePath(TLS_FILE_MISSING),
      key_file: absolutePath(TLS_FILE_MISSING),
    })
    .optional(),
  max_body: size().prefault('1MiB'),
  header_timeout: duration().prefault('10s'),
  body_timeout: duration().prefault('30s'),
  transport: z.enum(['node', 'uws'], { error: 'must be node or uws' }).default('node'),
});

const shareEntry = z.strictObject(
  {
    name: nonEmptyString().regex(/^[^/\\]+$/, 'must be a share name without / or \\'),
    server: host().optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'must be a mapping like "- name: schule"' : undefined) },
);

const smbSection = z
  .strictObject({
    server: host().optional(),
    port: port().default(445),
    domain: nonEmptyString(),
    shares: z.array(shareEntry).min(1, 'must list at least one share'),
    indexer_service_account: z
      .strictObject({
        user: nonEmptyString().optional(),
        password_file: absolutePath().default(DEFAULT_INDEXER_PASSWORD_FILE),
        /** With Kerberos: the account's keys from this keytab instead of its password (same file rules). */
        keytab_file: absolutePath().optional(),
      })
      .prefault({}),
    /**
     * How sessions authenticate: negotiate uses Kerberos where a ticket can be had (kerberos section set, the KDC
     * answers, the server has its SPN) and NTLM otherwise; kerberos and ntlm use only that one (README, "Kerberos
     * and single sign-on").
     */
    auth: z.enum(SMB_AUTH_MODES, { error: `must be one of: ${SMB_AUTH_MODES.join(', ')}` }).default('negotiate'),
    request_timeout: duration().prefault('30s'),
    idle_timeout: duration().prefault('5m'),
    // Why these defaults: README, "SMB security".
    min_dialect: z.enum(DIALECT_NAMES).default('3.0'),
    require_encryption: z.boolean().default(true),
    /** How long a pooled user session serves before its account is asked again (README, Security). */
    session_max_age: duration().prefault('60s'),
    /** Pooled SMB connections of one account (by SID) per http-front thread; one more is a 503 (README, Security). */
    max_connections_per_account: intBetween(1, 10_000).default(4),
    /** Pooled SMB connections of all users per http-front thread. */
    max_connections: intBetween(1, 1_000_000).default(512),
  })
  // Runs even when other smb keys are invalid (so all problems show at once); hence the defensive reads.
  .superRefine((smb, ctx) => {
    checkShares(smb, ctx);
    checkConnectionBounds(smb, ctx);
  }, { when: () => true });

/** A KDC as host or host:port (port 88 by default). */
const kdcAddress = z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be a host name or address, optionally with :port');

/** A DNS server as an IP address, optionally with :port (an IPv6 address with a port in brackets: [::1]:53). */
const dnsServer = z.string().refine((text) => isIP(parseDnsServer(text).address) !== 0 && parseDnsServer(text).port <= 65535, {
  error: 'must be an IP address, optionally with :port (IPv6 with a port as [::1]:53)',
});

const kerberosSection = z.strictObject({
  /** The realm, in capitals as the directory spells it (EDU.TEST for the domain edu.test). */
  realm: nonEmptyString().regex(/^[^a-z]+$/, 'must be in capitals, like EDU.TEST'),
  /** Absent: the realm's KDCs from DNS SRV records (_kerberos._tcp.<realm>), asked of dns_servers. */
  kdcs: z.array(kdcAddress).min(1, 'must list at least one KDC (a domain controller), or be left out to find them in DNS').optional(),
  /** The DNS servers asked for those records (the directory's DNS); absent: the system's. */
  dns_servers: z.array(dnsServer).min(1, 'must list at least one DNS server, or be left out to ask the system\'s').optional(),
  /**
   * The service principal of each file server, by the host name or address the service connects to, where it is
   * not cifs/<that name> (connecting to an address, or to an alias).
   */
  spns: z.record(z.string(), z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'must be a service principal like cifs/DC1.edu.test')).default({}),
  ticket_lifetime: duration().prefault('10h'),
  timeout: duration().prefault('10s'),
  /**
   * The proxy's own service account, trusted for constrained delegation: with its keys (S4U2Self, S4U2Proxy) the
   * service reaches SMB as a user a trusted caller names, without the user's password (README, "Kerberos and
   * single sign-on").
   */
  delegation: z
    .strictObject({
      /** sAMAccountName; S4U2Self and S4U2Proxy run with its (forwardable) TGT. */
      account: nonEmptyString(),
      /** Its keys; same file rules as smb.indexer_service_account.keytab_file. */
      keytab_file: absolutePath(),
      /** HTTP Negotiate accepts tickets for this SPN (its keys in the same keytab). */
      http_spn: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'must be a service principal like HTTP/proxy.schule.local').optional(),
    })
    .optional(),
});

/** Share names are unique (case-insensitive, like SMB) and every share has a backend server. */
function checkShares(smb: { server?: unknown; shares?: unknown }, ctx: z.RefinementCtx): void {
  if (!Array.isArray(smb.shares)) return;
  const firstIndexByName = new Map<string, number>();
  smb.shares.forEach((share: unknown, index) => {
    if (share === null || typeof share !== 'object') return;
    const { name, server } = share as { name?: unknown; server?: unknown };
    if (typeof name === 'string') {
      const first = firstIndexByName.get(name.toLowerCase());
      if (first === undefined) firstIndexByName.set(name.toLowerCase(), index);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['shares', index, 'name'],
          message: `duplicate share name "${name}" (already used by smb.shares[${first}])`,
        });
    }
    if (server === undefined && smb.server === undefined) {
      ctx.addIssue({ code: 'custom', path: ['shares', index, 'server'], message: 'required because smb.server is not set' });
    }
  });
}

/** One account's connections cannot be allowed more than everyone's. */
function checkConnectionBounds(smb: { max_connections_per_account?: unknown; max_connections?: unknown }, ctx: z.RefinementCtx): void {
  const { max_connections_per_account: perAccount, max_connections: total } = smb;
  if (typeof perAccount === 'number' && typeof total === 'number' && perAccount > total) {
    ctx.addIssue({ code: 'custom', path: ['max_connections_per_account'], message: `must not be more than smb.max_connections (${total})` });
  }
}

const ldapSection = z.strictObject({
  // Only LDAPS: simple binds send passwords, and directories refuse them on plain LDAP.
  url: urlWithScheme(['ldaps'], 'must be an ldaps:// URL (simple binds send passwords, so plain ldap:// is refused)'),
  base_dn: distinguishedName().optional(),
  tls: z
    .strictObject({
      ca_file: absolutePath().optional(),
      server_name: host().optional(),
      reject_unauthorized: z.boolean().default(true),
    })
    .prefault({}),
  timeout: duration().prefault('5s'),
  cache_ttl: duration().prefault('5m'),
  negative_cache_ttl: duration().prefault('30s'),
});

const adminSection = z.strictObject({
  user: nonEmptyString(),
  groups: z.array(nonEmptyString()).min(1, 'must list at least one group'),
  session_ttl: duration().prefault('30m'),
});

// The login throttle (src/auth/login-throttle.ts): failed logins per account and per client address.
const authSection = z.strictObject({
  max_failures: intBetween(0, 1_000_000).default(5),
  max_address_failures: intBetween(0, 1_000_000).default(100),
  trusted_addresses: z.array(ipAddress()).max(100).default([]),
  lockout: duration().prefault('1m'),
  failure_window: duration().prefault('15m'),
});

// Calls on behalf of a user (src/viewer/service-user.ts): accounts that may name the user in X-Service-User.
const wikiSection = z.strictObject({
  trusted_callers: z.array(accountName()).max(100).default([]),
  // Whether a trusted caller may name a member of an admin group in X-Service-User (service-user.ts).
  trusted_callers_may_name_admins: z.boolean().default(false),
  // Every hit, suggestion and listed page is checked against the page's ACL on the file server, read at most this
  // long ago (src/search/live-acl.ts): the index alone learns of some ACL changes only at the next pass.
  live_acl: z.strictObject({ enabled: z.boolean().default(true), max_age: duration().prefault('1s') }).prefault({}),
});

const DEFAULT_ELASTICSEARCH_URL = 'http://127.0.0.1:9200';
const nodeUrl = () => urlWithScheme(['http', 'https'], 'must be a URL with scheme http or https');

// Where the wiki index lives: the loopback sidecar (url) or the nodes of a cluster, and how to log on to it.
const elasticsearchSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** One node; the shorthand of `nodes: [url]`. */
    url: nodeUrl().optional(),
    nodes: z.array(nodeUrl()).min(1, 'must list at least one node URL').optional(),
    // A cluster with security on: an API key, or a user with a password; each from a file like the indexer secret.
    auth: z
      .union([
        z.strictObject({ api_key_file: absolutePath() }),
        z.strictObject({ username: nonEmptyString(), password_file: absolutePath() }),
      ], { error: 'must hold either api_key_file, or username and password_file' })
      .optional(),
    tls: z.strictObject({ ca_file: absolutePath().optional() }).prefault({}),
    /** The alias name; the versioned indices are `<index_prefix>-vN`. One per site keeps the sites apart. */
    index_prefix: nonEmptyString()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be an index name: lower-case letters, digits, - and _ (e.g. wiki-md-nord)')
      .default('wiki-md'),
    index: z
      .strictObject({
        number_of_shards: intBetween(1, 1024).default(1),
        /** Default: 0 with one node (a replica could never be assigned), 1 with more. */
        number_of_replicas: intBetween(0, 16).optional(),
        refresh_interval: duration().prefault('1s'),
      })
      .prefault({}),
  })
  .superRefine((es, ctx) => {
    if (es.url !== undefined && es.nodes !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'give either elasticsearch.url (one node) or elasticsearch.nodes, not both' });
    }
  })
  .transform(({ url, nodes, index, ...rest }) => {
    const all = nodes ?? [url ?? DEFAULT_ELASTICSEARCH_URL];
    return { ...rest, nodes: all, index: { ...index, number_of_replicas: index.number_of_replicas ?? (all.length > 1 ? 1 : 0) } };
  });

const webhooksSection = z.strictObject({
  supported_user_agents: z
    .array(nonEmptyString().regex(/^[^/\s]+$/, 'must be a User-Agent name without version or spaces, e.g. platform-api'))
    .default(['service-eventhandler', 'platform-api']),
  dedupe_size: intBetween(1, 1_000_000).default(100),
  max_timestamp_age: duration().prefault('5m'),
  replica_lease: duration().prefault('10s'),
  user_events: z
    .strictObject({
      ttl: duration().prefault('24h'),
      max_per_user: intBetween(1, 1_000_000).default(200),
      max_total: intBetween(1, 100_000_000).default(50_000),
      max_bytes: size().prefault('64MiB'),
      max_event_size: size().prefault('64KiB'),
    })
    .refine((events) => events.max_event_size <= events.max_bytes, {
      path: ['max_event_size'],
      message: 'must not exceed webhooks.user_events.max_bytes',
    })
    .prefault({}),
});

// Several proxies behind a load balancer share their webhook state (event ids, client registry) and their WebDAV
// state (locks, dead properties) through the Elasticsearch cluster; 'none' keeps it in each proxy (the dedupe ring
// and the locks in memory, the registry and the dead properties in files).
const SHARED_STATE_STORES = ['none', 'elasticsearch'] as const;
// Where proxies that share state check webhook event ids: in the cluster (any proxy may take any event), or each in
// its own ring while the balancer sends every sender to one proxy by its key (README, More than one machine).
const EVENT_ID_CHECKS = ['shared', 'routed_by_key'] as const;
const clusterSection = z.strictObject({
  shared_state: z.enum(SHARED_STATE_STORES, { error: `must be one of: ${SHARED_STATE_STORES.join(', ')}` }).default('none'),
  event_ids: z.enum(EVENT_ID_CHECKS, { error: `must be one of: ${EVENT_ID_CHECKS.join(', ')}` }).default('shared'),
  /** The shared indices are `<index_prefix>-webhook-events`, `-webhook-clients`, `-dav-locks` and `-dav-properties`; default `<elasticsearch.index_prefix>-shared`. */
  index_prefix: nonEmptyString()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be an index name: lower-case letters, digits, - and _ (e.g. wiki-md-nord-shared)')
    .optional(),
});

// Bounds of the WebDAV state the dav-state actor keeps in memory (locks) and on disk (dead properties), or in the
// cluster with cluster.shared_state: elasticsearch.
const webdavSection = z.strictObject({
  locks: z
    .strictObject({
      max_per_user: intBetween(1, 100_000).default(100),
      max_owner_size: size().prefault('4KiB'),
      // A depth-infinity LOCK asks the file server for the write right on every member it covers while the client
      // waits (one round trip each, 8 at a time); past this many it is refused rather than keep the client waiting.
      max_deep_lock_members: intBetween(1, 1_000_000).default(10_000),
    })
    .prefault({}),
  dead_properties: z
    .strictObject({
      max_per_resource: intBetween(1, 100_000).default(100),
      max_resource_size: size().prefault('64KiB'),
      // One user's share of the total, so that one user cannot fill the store for everyone.
      max_user_size: size().prefault('4MiB'),
      max_total_size: size().prefault('64MiB'),
    })
    .prefault({}),
});

/**
 * The default number of HTTP fronts: one per two cores of the host, at least 1 and at most 8 (2 cores: 1, 4: 2,
 * 16: 8). A front under load keeps a core busy; the SMB readers, the other actors and, usually, the Elasticsearch
 * sidecar need the rest.
 */
export function defaultHttpFronts(cores = availableParallelism()): number {
  return Math.min(8, Math.max(1, Math.floor(cores / 2)));
}

// The pools' defaults: on a 2-core host no pair of sizes indexed faster by more than the run's noise (bench/RESULTS.md,
// "Indexing pools"); bigger hosts are not measured yet.
const workersSection = z.strictObject({
  http_front: intBetween(1, 64).default(() => defaultHttpFronts()),
  smb_readers: intBetween(1, 256).default(2),
  indexers: intBetween(1, 64).default(2),
});

const supervisorSection = z.strictObject({
  max_restarts: intBetween(0, 1000).default(5),
  restart_window: duration().prefault('60s'),
  backoff_initial: duration().prefault('100ms'),
  backoff_max: duration().prefault('5s'),
  shutdown_timeout: duration().prefault('10s'),
  /** A loaded thread beside each actor for its next restart: faster restarts for 10 to 25 MB per actor (README). */
  spare_threads: z.boolean().default(false),
});

export const configSchema = z
  .strictObject({
    http: httpSection.prefault({}),
    smb: smbSection,
    ldap: ldapSection,
    kerberos: kerberosSection.optional(),
    admin: adminSection,
    auth: authSection.prefault({}),
    elasticsearch: elasticsearchSection.prefault({}),
    wiki: wikiSection.prefault({}),
    reconciler: z.strictObject({
      interval: duration().prefault('15m'),
      watch: z.boolean().default(true),
      pace: z.enum(PACES, { error: `must be one of: ${PACES.join(', ')}` }).default('balanced'),
    }).prefault({}),
    webhooks: webhooksSection.prefault({}),
    cluster: clusterSection.prefault({}),
    storage: z.strictObject({ data_dir: absolutePath().default('/var/lib/edu-fileproxy') }).prefault({}),
    webdav: webdavSection.prefault({}),
    workers: workersSection.prefault({}),
    supervisor: supervisorSection.prefault({}),
    log: z
      .strictObject({ level: z.enum(LOG_LEVELS, { error: `must be one of: ${LOG_LEVELS.join(', ')}` }).default('info') })
      .prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.smb.auth === 'kerberos' && !config.kerberos) {
      ctx.addIssue({ code: 'custom', path: ['smb', 'auth'], message: 'kerberos needs the kerberos section (its realm)' });
    }
    if (config.smb.indexer_service_account.keytab_file && !config.kerberos) {
      ctx.addIssue({ code: 'custom', path: ['smb', 'indexer_service_account', 'keytab_file'], message: 'needs the kerberos section (its realm)' });
    }
    if (config.cluster.shared_state === 'elasticsearch' && !config.elasticsearch.enabled) {
      ctx.addIssue({ code: 'custom', path: ['cluster', 'shared_state'], message: 'elasticsearch needs elasticsearch.enabled: true (the cluster the proxies share)' });
    }
  })
  // The indexer reads SMB with the global-admin account unless another one is configured.
  .transform((config) => ({
    ...config,
    cluster: { ...config.cluster, index_prefix: config.cluster.index_prefix ?? `${config.elasticsearch.index_prefix}-shared` },
    smb: {
      ...config.smb,
      indexer_service_account: {
        ...config.smb.indexer_service_account,
        user: config.smb.indexer_service_account.user ?? config.admin.user,
      },
    },
  }));

/** The validated config: durations in milliseconds, sizes in bytes, defaults filled in. */
export type Config = z.output<typeof configSchema>;

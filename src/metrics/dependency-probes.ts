// The probes of GET /readyz, one per dependency: Elasticsearch (cluster
// health), the directory (an LDAPS bind as the indexer account) and each SMB
// backend (a session setup as the indexer account). Without the indexer
// password (wiki off) there is no account to log on with: the directory is
// only connected to, a file server asked for an anonymous session. A result's
// detail goes to the log only (src/metrics/readiness.ts): /readyz shows states.
import type { Client } from '@elastic/elasticsearch';
import type { Config } from '../config/index.js';
import { toDirectoryError, withLdapClient } from '../ldap/connection.js';
import { ldapClientsFromConfig } from '../ldap/from-config.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { IndexerShares } from '../logon/indexer-shares.js';
import { smbClientFromConfig } from '../logon/smb-client.js';
import { SmbLogons } from '../logon/smb-logons.js';
import { SmbConnectionError, SmbStatusError, SmbTimeoutError } from '../smb/index.js';
import type { DependencyProbe, ProbeResult } from './readiness.js';

/** A dependency that answers slower than this counts as down (readiness probes have short timeouts too). */
const PROBE_TIMEOUT_MS = 3_000;

export function dependencyProbes(config: Config, secrets: ServiceSecrets): DependencyProbe[] {
  return [elasticsearchProbe(config.elasticsearch, secrets), ldapProbe(config, secrets.indexerPassword), ...smbProbes(config, secrets)];
}

function elasticsearchProbe(elasticsearch: Config['elasticsearch'], secrets: ServiceSecrets): DependencyProbe {
  const where = elasticsearch.nodes.join(', ');
  // Made on the first probe: with the wiki off there is nothing to ask, and the client's modules, loaded then too,
  // would hold megabytes of the main thread's heap in a service that no one asks for readiness.
  let loaded: { client: Client; explain: typeof import('../search/search-failure.js').explainSearchFailure } | undefined;
  return {
    name: 'elasticsearch',
    ...(elasticsearch.enabled ? {} : { disabled: 'elasticsearch.enabled is false: the wiki feature is off' }),
    async run(): Promise<ProbeResult> {
      if (loaded === undefined) {
        const [{ createSearchClient }, { explainSearchFailure }] = await Promise.all([import('../search/client.js'), import('../search/search-failure.js')]);
        const client = createSearchClient({ nodes: elasticsearch.nodes, ...secrets.elasticsearch }, { requestTimeoutMs: PROBE_TIMEOUT_MS });
        loaded = { client, explain: explainSearchFailure };
      }
      const { client, explain } = loaded;
      let health: { status: string; cluster_name: string };
      try {
        health = await client.cluster.health();
      } catch (err) {
        const { kind, message } = explain(err);
        // A node that answered but refused is not "unreachable": the detail says what it refused.
        return { up: false, detail: kind === 'other' ? `${where} unreachable: ${errorText(err)}` : `${where}: ${message}` };
      }
      const up = health.status === 'green' || health.status === 'yellow';
      return { up, detail: `cluster ${health.cluster_name} at ${where} is ${health.status}` };
    },
  };
}

function ldapProbe(config: Config, indexerPassword: string | undefined): DependencyProbe {
  const { ldap } = config;
  const user = config.smb.indexer_service_account.user;
  // AD binds DOMAIN\user and UPNs, not a bare account name.
  const bindName = /[\\@]/.test(user) ? user : `${config.smb.domain}\\${user}`;
  return {
    name: 'ldap',
    async run(): Promise<ProbeResult> {
      const connect = ldapClientsFromConfig(ldap, Math.min(ldap.timeout, PROBE_TIMEOUT_MS));
      try {
        if (indexerPassword === undefined) {
          await withLdapClient(connect, (client) => client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['defaultNamingContext'] }));
          return { up: true, detail: `${ldap.url} answers over LDAPS (no bind: the indexer account is not loaded while elasticsearch.enabled is false)` };
        }
        await withLdapClient(connect, (client) => client.bind(bindName, indexerPassword));
        return { up: true, detail: `LDAPS bind as the indexer account at ${ldap.url}` };
      } catch (err) {
        return { up: false, detail: toDirectoryError(err, `binding as the indexer account at ${ldap.url}`).message };
      }
    },
  };
}

/**
 * One probe per distinct SMB server of the shares: the indexer account's logon and a tree connect to one of the
 * server's shares, through a client of the probe's own (a pooled session would answer the next probe without
 * asking the server). Without the account, an anonymous session setup: the server's answer, a refusal included,
 * shows it negotiates SMB on the config's terms (dialect, encryption).
 */
function smbProbes(config: Config, secrets: ServiceSecrets): DependencyProbe[] {
  const { smb } = config;
  const logons = new SmbLogons(config);
  const shareOf = new Map(smb.shares.map((share) => [(share.server ?? smb.server)!, share.name]));
  return [...shareOf].map(([host, shareName]) => ({
    name: 'smb',
    server: `smb://${host}:${smb.port}`,
    async run(): Promise<ProbeResult> {
      const timeoutMs = Math.min(smb.request_timeout, PROBE_TIMEOUT_MS);
      const client = smbClientFromConfig(smb, { connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs });
      try {
        if (secrets.indexerPassword === undefined) {
          const anonymous = client.share({ host, port: smb.port, domain: '', user: '', password: '', share: shareName });
          const answered = await anonymous.logon((setup) => setup()).then(() => undefined, (err: unknown) => err instanceof SmbStatusError ? undefined : err);
          if (answered !== undefined) return { up: false, detail: `${host}:${smb.port} does not answer an SMB negotiate: ${errorText(answered)}` };
          return { up: true, detail: `${host}:${smb.port} answers an SMB negotiate (no logon as an account: the indexer account is not loaded while elasticsearch.enabled is false)` };
        }
        const share = new IndexerShares(client, logons, smb.port, secrets).get(host, shareName);
        let mechanism: 'kerberos' | 'ntlm';
        try {
          mechanism = await share.withTree(async (tree) => tree.session.mechanism);
        } catch (err) {
          if (err instanceof SmbConnectionError || err instanceof SmbTimeoutError) return { up: false, detail: `${host}:${smb.port} does not answer an SMB negotiate: ${errorText(err)}` };
          return { up: false, detail: `SMB session setup as the indexer account at ${host}:${smb.port} failed: ${errorText(err)}` };
        }
        return { up: true, detail: `SMB session setup as the indexer account at ${host}:${smb.port} (${mechanism === 'kerberos' ? `Kerberos, ${logons.spnFor(host)}` : 'NTLM'})` };
      } finally {
        await client.close();
      }
    },
  }));
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}

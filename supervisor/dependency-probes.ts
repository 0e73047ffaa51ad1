// The probes of GET /readyz, one per dependency: Elasticsearch (cluster health), the directory (an LDAPS bind as the
// indexer account) and each SMB backend (a session setup as the indexer account). Without the indexer password
// (wiki off) there is no account to log on with: the directory is only asked for its root DSE, a file server for an
// anonymous session. Each asks through its dependency's facade (the Elasticsearch client of src/search/client.ts,
// Directory.probe, SmbShare.probe); what is here is which of them the service needs and what the log says of each.
// The supervisor runs them (once for every front: src/metrics/readiness.ts caches the results); a result's detail
// goes to the log only: /readyz shows states.
import type { Client } from '@elastic/elasticsearch';
import type { Config } from '../src/config/index.js';
import { directoryFromConfig } from '../src/ldap/from-config.js';
import { DirectoryError, LdapConfigError } from '../src/ldap/connection.js';
import type { ServiceSecrets } from '../src/runtime/control.js';
import { IndexerShares } from '../src/logon/indexer-shares.js';
import { smbClientFromConfig } from '../src/logon/smb-client.js';
import { SmbLogons } from '../src/logon/smb-logons.js';
import { SmbConnectionError, SmbStatusError, SmbTimeoutError } from '../src/smb/index.js';
import { PROBE_TIMEOUT_MS, type DependencyProbe, type ProbeResult } from '../src/metrics/readiness.js';

export function dependencyProbes(config: Config, secrets: ServiceSecrets): DependencyProbe[] {
  return [elasticsearchProbe(config.elasticsearch, secrets), ldapProbe(config, secrets.indexerPassword), ...smbProbes(config, secrets)];
}

function elasticsearchProbe(elasticsearch: Config['elasticsearch'], secrets: ServiceSecrets): DependencyProbe {
  const where = elasticsearch.nodes.join(', ');
  // Made on the first probe: with the wiki off there is nothing to ask, and the client's modules, loaded then too,
  // would hold megabytes of the main thread's heap in a service that no one asks for readiness.
  let loaded: { client: Client; explain: typeof import('../src/search/search-failure.js').explainSearchFailure } | undefined;
  return {
    name: 'elasticsearch',
    ...(elasticsearch.enabled ? {} : { disabled: 'elasticsearch.enabled is false: the wiki feature is off' }),
    async run(): Promise<ProbeResult> {
      if (loaded === undefined) {
        const [{ searchClientFromConfig }, { explainSearchFailure }] = await Promise.all([import('../src/search/client.js'), import('../src/search/search-failure.js')]);
        const client = searchClientFromConfig(elasticsearch, secrets.elasticsearch, 'readiness');
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
  const what = indexerPassword === undefined ? 'reading the root DSE' : 'binding as the indexer account';
  return {
    name: 'ldap',
    // Without it the service has no directory (src/ldap/from-config.ts): nothing asks one, so nothing waits for it.
    ...(ldap.base_dn === undefined ? { disabled: 'ldap.base_dn is not set: the service asks no directory' } : {}),
    async run(): Promise<ProbeResult> {
      try {
        const done = await directoryFromConfig(config, indexerPassword, Math.min(ldap.timeout, PROBE_TIMEOUT_MS)).probe();
        return done === 'bound'
          ? { up: true, detail: `LDAPS bind as the indexer account at ${ldap.url}` }
          : { up: true, detail: `${ldap.url} answers over LDAPS (no bind: the indexer account is not loaded while elasticsearch.enabled is false)` };
      } catch (err) {
        if (err instanceof DirectoryError || err instanceof LdapConfigError) return { up: false, detail: `${what} at ${ldap.url}: ${err.message}` };
        throw err;
      }
    },
  };
}

/**
 * One probe per distinct SMB server of the shares: a logon and a tree connect to one of the server's shares
 * (SmbShare.probe), as the indexer account, through a client of the probe's own (a pooled session would answer
 * the next probe without asking the server). Without the account, an anonymous one: the server's answer, a refusal
 * included, shows it negotiates SMB on the config's terms (dialect, encryption).
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
          const answered = await anonymous.probe().then(() => undefined, (err: unknown) => err instanceof SmbStatusError ? undefined : err);
          if (answered !== undefined) return { up: false, detail: `${host}:${smb.port} does not answer an SMB negotiate: ${errorText(answered)}` };
          return { up: true, detail: `${host}:${smb.port} answers an SMB negotiate (no logon as an account: the indexer account is not loaded while elasticsearch.enabled is false)` };
        }
        let mechanism: 'kerberos' | 'ntlm';
        try {
          mechanism = await new IndexerShares(client, logons, smb.port, secrets).get(host, shareName).probe();
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

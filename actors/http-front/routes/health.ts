// GET /healthz: every actor's and pool's state, from the supervisor. It answers without authentication, so every
// text in it (an actor's last error, a share watch's) loses the deployment's addresses and names; the log has them.
import type { Config } from '../../../src/config/index.js';
import type { Router } from '../../../src/http/router.js';
import type { SupervisorProtocol } from '../../kinds.js';
import { addressRedactor, anonymousHealth } from '../../../src/runtime/health.js';
import type { Remote } from '../../../src/runtime/rpc.js';

export function registerHealthRoutes(router: Router, supervisor: Remote<SupervisorProtocol>, config: Config): void {
  const redact = addressRedactor(deploymentNames(config));
  router.add('GET', '/healthz', async (ex) => {
    const report = anonymousHealth(await supervisor.health(), redact);
    ex.json(report.status === 'ok' ? 200 : 503, report, { 'cache-control': 'no-store' });
  });
}

/** The hosts, domain, realm and accounts of config.yml: what an error text may name and /healthz must not. */
function deploymentNames(config: Config): string[] {
  const { smb, ldap, kerberos, elasticsearch } = config;
  const hostOf = (url: string) => new URL(url).hostname;
  return [
    smb.server, ...smb.shares.map((s) => s.server), smb.domain, smb.indexer_service_account.user,
    ldap?.url === undefined ? undefined : hostOf(ldap.url), ldap?.tls.server_name,
    kerberos?.realm, ...(kerberos?.kdcs ?? []).map((kdc) => kdc.split(':')[0]), kerberos?.delegation?.account,
    ...elasticsearch.nodes.map(hostOf), elasticsearch.auth !== undefined && 'username' in elasticsearch.auth ? elasticsearch.auth.username : undefined,
  ].filter((name): name is string => name !== undefined && name !== '');
}

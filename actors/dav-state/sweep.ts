// The sweep of dead properties: every reconciler.interval, dav-state asks the file server, as the indexer account,
// which file each resource with properties names now, and drops the properties of a file that is gone, renamed or
// replaced behind the proxy's back (over SMB). The file server is the authority; a path the indexer account may not
// see, or a server that does not answer, keeps its properties until a sweep can tell. Without the indexer's password
// (the wiki off) there is no sweep: then only what the proxy itself deletes or moves loses its properties.
import type { Logger } from 'pino';
import type { Config } from '../../src/config/index.js';
import type { ServiceSecrets } from '../../src/runtime/control.js';
import { IndexerShares } from '../../src/logon/indexer-shares.js';
import { smbClientFromConfig } from '../../src/logon/smb-client.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';
import { SmbError, type SmbShare } from '../../src/smb/index.js';
import type { DavResource } from '../../src/webdav/dav-path.js';
import { fileIdentity } from '../../src/webdav/dead-properties.js';
import type { DavState } from './state.js';

interface PropertySweep {
  stop(): Promise<void>;
}

export function startPropertySweep(config: Config, secrets: ServiceSecrets, state: DavState, log: Logger): PropertySweep | undefined {
  if (secrets.indexerPassword === undefined) return undefined;
  const { smb } = config;
  const client = smbClientFromConfig(smb);
  // The indexer's logon as smb.auth says (Kerberos or NTLM), built where every other logon of the service is.
  const indexerShares = new IndexerShares(client, new SmbLogons(config), smb.port, secrets);
  const shares = new Map<string, SmbShare>(smb.shares.map((s) => [s.name.toLowerCase(), indexerShares.get((s.server ?? smb.server)!, s.name)]));
  const identityAt = async (resource: DavResource): Promise<string | null | undefined> => {
    const share = shares.get(resource.share.toLowerCase());
    if (share === undefined) return undefined;
    try {
      const stat = await share.stat(resource.path);
      return fileIdentity({ fileId: stat.fileId, birthtimeMs: stat.birthtime.getTime() });
    } catch (err) {
      return err instanceof SmbError && err.code === 'NOT_FOUND' ? null : undefined;
    }
  };
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= state.sweep(identityAt).then(
      (dropped) => {
        if (dropped > 0) log.info({ dropped, propertyResources: state.stats()['propertyResources'] }, 'dead properties of files gone behind the proxy\'s back dropped');
      },
      (err: unknown) => log.warn({ error: err instanceof SmbError ? err.code : String(err) }, 'dead-property sweep failed'),
    ).finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(sweep, config.reconciler.interval);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await client.close();
    },
  };
}

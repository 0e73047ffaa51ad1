/**
 * The one place that turns config.yml's `smb` block into an SMB client: every thread's pool takes the same
 * timeouts, lowest dialect and encryption demand, so that no caller talks to the file server under other terms.
 */
import type { Config } from '../config/schema.js';
import { SmbClient, SmbPool, type SmbPoolOptions } from '../smb/index.js';

/** `limits`: a caller that answers someone waiting (a request, a probe) connects and waits for less. */
export function smbClientFromConfig(smb: Config['smb'], limits: Pick<SmbPoolOptions, 'connectTimeoutMs' | 'requestTimeoutMs'> = {}): SmbClient {
  return new SmbClient(new SmbPool({
    requestTimeoutMs: smb.request_timeout,
    idleTimeoutMs: smb.idle_timeout,
    minDialect: smb.min_dialect,
    requireEncryption: smb.require_encryption,
    maxConnectionsPerAccount: smb.max_connections_per_account,
    maxConnections: smb.max_connections,
    ...limits,
  }));
}

/**
 * The shares as the indexer account sees them: one SmbShare per (server, share) on a thread's SMB client, with the
 * credentials SmbLogons.indexer gives, kept for the thread's life.
 */
import type { SmbClient, SmbShare } from '../smb/index.js';
import type { SmbLogons } from './smb-logons.js';

export class IndexerShares {
  private readonly shares = new Map<string, SmbShare>();

  constructor(
    private readonly client: SmbClient,
    private readonly logons: SmbLogons,
    private readonly port: number,
    private readonly secrets: { indexerPassword?: string; indexerKeytab?: Uint8Array },
  ) {}

  get(server: string, share: string): SmbShare {
    const key = `${server}\0${share}`;
    let found = this.shares.get(key);
    if (found === undefined) {
      found = this.client.share({ host: server, port: this.port, ...this.logons.indexer(server, this.secrets), share });
      this.shares.set(key, found);
    }
    return found;
  }
}

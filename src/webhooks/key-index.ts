import crypto from 'node:crypto';
import type { WebhookClient } from './client.js';

/** The only thing the intake check needs from the registry. */
export interface WebhookClientLookup {
  findByKey(apiKey: string): WebhookClient | undefined;
}

interface IndexEntry {
  readonly digest: Buffer;
  readonly client: WebhookClient;
}

function keyDigest(apiKey: string): Buffer {
  return crypto.createHash('sha256').update(apiKey, 'utf8').digest();
}

/**
 * Clients by API key, looked up through the SHA-256 of the key: the time a lookup takes does
 * not depend on how many leading characters of a guessed key are right, and the final
 * comparison of the digests is constant-time as well. Immutable; build a new one per change.
 */
export class ClientKeyIndex implements WebhookClientLookup {
  private readonly byDigest = new Map<string, IndexEntry>();

  constructor(clients: readonly WebhookClient[]) {
    for (const client of clients) {
      const digest = keyDigest(client.api_key);
      this.byDigest.set(digest.toString('hex'), { digest, client });
    }
  }

  get size(): number {
    return this.byDigest.size;
  }

  findByKey(apiKey: string): WebhookClient | undefined {
    const digest = keyDigest(apiKey);
    const entry = this.byDigest.get(digest.toString('hex'));
    if (entry === undefined || !crypto.timingSafeEqual(entry.digest, digest)) return undefined;
    return entry.client;
  }
}

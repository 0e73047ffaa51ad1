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

/** The key's SHA-256 in hex, in one call (no Hash object per request). */
function keyDigestHex(apiKey: string): string {
  return crypto.hash('sha256', apiKey);
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
      const hex = keyDigestHex(client.api_key);
      this.byDigest.set(hex, { digest: Buffer.from(hex, 'hex'), client });
    }
  }

  get size(): number {
    return this.byDigest.size;
  }

  findByKey(apiKey: string): WebhookClient | undefined {
    const hex = keyDigestHex(apiKey);
    const entry = this.byDigest.get(hex);
    if (entry === undefined || !crypto.timingSafeEqual(entry.digest, Buffer.from(hex, 'hex'))) return undefined;
    return entry.client;
  }
}

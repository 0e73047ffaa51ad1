import type { Client } from '@elastic/elasticsearch';
import type { WebhookClient } from './client.js';
import { answeredWith, ensureIndex } from '../search/shared-state.js';
import { ClientListChangedError, storedClients, storedClientsSchema, WebhookStoreError, type WebhookClientStore } from './store.js';

/** The one document holding the list. */
const LIST_ID = 'clients';

/**
 * The webhook client list of proxies that share state (cluster.shared_state: elasticsearch): one document in an
 * Elasticsearch index, in the same shape as the file a single proxy keeps. A GET by id is real-time, so a proxy
 * that polls it sees a change as soon as the write returned. A save is a compare-and-set on the version this
 * proxy loaded (`if_seq_no`/`if_primary_term`; `op_type: create` for the first list): when another proxy wrote
 * first, Elasticsearch answers 409 and the save throws ClientListChangedError, so no proxy overwrites a change
 * it has not seen. The keys are stored in clear, as in the file: the cluster's access control protects them.
 */
export class ElasticsearchWebhookClientStore implements WebhookClientStore {
  /** The version of the list last loaded or saved here; undefined while the document does not exist. */
  private version: { seqNo: number; primaryTerm: number } | undefined;

  constructor(private readonly client: Client, readonly index: string) {}

  open(replicas: number): Promise<void> {
    return ensureIndex(this.client, this.index, {
      settings: { number_of_shards: 1, number_of_replicas: replicas },
      // Nothing is searched: the list is read by id.
      mappings: { dynamic: false, properties: {} },
    });
  }

  async load(): Promise<WebhookClient[]> {
    let found;
    try {
      found = await this.client.get({ index: this.index, id: LIST_ID });
    } catch (err) {
      if (!answeredWith(err, 404)) throw err;
      this.version = undefined;
      return [];
    }
    const parsed = storedClientsSchema.safeParse(found._source);
    if (!parsed.success) {
      throw new WebhookStoreError(`the webhook client list in ${this.index} has an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    this.version = { seqNo: found._seq_no!, primaryTerm: found._primary_term! };
    return parsed.data.clients;
  }

  async save(clients: readonly WebhookClient[]): Promise<void> {
    const document = storedClients(clients);
    try {
      const written = this.version === undefined
        ? await this.client.create({ index: this.index, id: LIST_ID, document, refresh: false })
        : await this.client.index({
          index: this.index, id: LIST_ID, document, refresh: false,
          if_seq_no: this.version.seqNo, if_primary_term: this.version.primaryTerm,
        });
      this.version = { seqNo: written._seq_no!, primaryTerm: written._primary_term! };
    } catch (err) {
      if (answeredWith(err, 409)) throw new ClientListChangedError(`another proxy changed the webhook client list in ${this.index}`);
      throw err;
    }
  }
}

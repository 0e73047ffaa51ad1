// The lock table of proxies that share state (cluster.shared_state: elasticsearch): one document in the cluster,
// read by a GET by id (real-time: a lock taken through one proxy stops a write through another at once, no refresh
// to wait for) and written back with compare-and-set on the version read (`if_seq_no`/`if_primary_term`, `create`
// for the first). A write that lost the race (409) reads the table again and redoes its step, so two proxies that
// lock the same resource at the same moment cannot both be granted. Elasticsearch answers a write once it is in
// the translog of the shard's copies: a lock is in the cluster before its client hears of it, and a proxy that
// dies loses none. One document, not one per lock: a depth-infinity lock must see every lock below it, and a write
// every lock above, at once; a search sees only what was refreshed. So every check is one GET, and the per-user
// bound (webdav.locks.max_per_user) holds across proxies. Expired locks are left out whenever the table is written.
import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '../common/logger.js';
import { answeredWith, ensureIndex, retryOnConflict } from '../search/shared-state.js';
import type { LockStore } from './lock-store.js';
import { LockTable, type StoredLock } from './locks.js';
import { ClusterCalls } from './cluster-calls.js';

const TABLE_ID = 'locks';

interface LoadedTable {
  table: LockTable;
  /** The version read; undefined while the document does not exist. */
  version: { seqNo: number; primaryTerm: number } | undefined;
}

export class ClusterLocks implements LockStore {
  private lastSize = 0;
  private readonly calls: ClusterCalls;

  constructor(private readonly client: Client, readonly index: string, private readonly options: { maxPerUser: number; now?: () => number }, log: Logger) {
    this.calls = new ClusterCalls(index, log);
  }

  open(replicas: number): Promise<void> {
    return ensureIndex(this.client, this.index, {
      settings: { number_of_shards: 1, number_of_replicas: replicas },
      // Nothing is searched: the table is read by id.
      mappings: { dynamic: false, properties: {} },
    });
  }

  get size(): number {
    return this.lastSize;
  }

  read<T>(use: (table: LockTable) => T): Promise<T> {
    return this.calls.run('reading the locks', async () => use((await this.load()).table));
  }

  change<T>(use: (table: LockTable) => T): Promise<T> {
    return this.calls.run('changing the locks', () => this.changed(use));
  }

  private changed<T>(use: (table: LockTable) => T): Promise<T> {
    return retryOnConflict(async () => {
      const { table, version } = await this.load();
      const before = table.revision;
      const result = use(table);
      if (table.revision === before) return result;
      const document = { locks: table.snapshot() };
      if (version === undefined) await this.client.create({ index: this.index, id: TABLE_ID, document, refresh: false });
      else await this.client.index({ index: this.index, id: TABLE_ID, document, refresh: false, if_seq_no: version.seqNo, if_primary_term: version.primaryTerm });
      this.lastSize = document.locks.length;
      return result;
    });
  }

  private async load(): Promise<LoadedTable> {
    let found;
    try {
      found = await this.client.get<{ locks?: unknown }>({ index: this.index, id: TABLE_ID });
    } catch (err) {
      if (!answeredWith(err, 404)) throw err;
      this.lastSize = 0;
      return { table: new LockTable(this.options), version: undefined };
    }
    const locks = found._source?.locks;
    if (!Array.isArray(locks)) throw new Error(`the WebDAV lock table in ${this.index} has an unexpected shape: no array "locks"`);
    const table = new LockTable(this.options, locks as StoredLock[]);
    this.lastSize = table.size;
    return { table, version: { seqNo: found._seq_no!, primaryTerm: found._primary_term! } };
  }
}

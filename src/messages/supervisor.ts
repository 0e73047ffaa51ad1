// What actors may ask the supervisor, declared once for both ends.
import type { ReadinessReport } from '../metrics/readiness.js';
import type { DocumentOutcome, FolderListing, NameListing, PageFacts } from '../reconcile/listing.js';
import type { ActorDetails } from '../runtime/control.js';
import type { PageAddress } from './reconciler.js';

export type ActorState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface ActorHealth {
  state: ActorState;
  kind: 'actor' | 'pool';
  restarts: number;
  /** Seconds since the current incarnation became ready. */
  uptimeSeconds?: number;
  lastError?: string;
  details?: ActorDetails;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  actors: Record<string, ActorHealth>;
}

export interface SupervisorProtocol {
  health(): Promise<HealthReport>;
  /** GET /readyz: whether Elasticsearch, the directory and each SMB backend answer (results kept a few seconds). */
  readiness(): Promise<ReadinessReport>;
  /** GET /metrics: the supervisor's and every actor's metrics, merged into Prometheus text. */
  metrics(): Promise<string>;
  /** smb-reader pool, indexer account: one folder of the reconciler's walk, with the pages of its `.wiki/`. */
  listWikiFolder(server: string, share: string, path: string): Promise<FolderListing>;
  /** smb-reader pool, indexer account: one page read (only its content with `known`) and rendered, or why not; for passes and the post-write hook. */
  loadPageDocument(page: PageAddress, known?: PageFacts): Promise<DocumentOutcome>;
  /** smb-reader pool, indexer account: the names in one folder (the reconciler confirms deletions with it). */
  listFolderNames(server: string, share: string, path: string): Promise<NameListing>;
}

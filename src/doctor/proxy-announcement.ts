/**
 * What each running proxy tells the others, for `fileproxy doctor`: one document per proxy in
 * `<elasticsearch.index_prefix>-proxies` (under the wiki alias's prefix, so the proxies' account may write it, and
 * so every proxy of the same index finds it, `cluster.shared_state: none` included), holding the shares it serves
 * and its settings of the state proxies share, renewed every ANNOUNCE_EVERY_MS. Doctor reads the documents renewed
 * within RECENT_MS (src/doctor/proxy-agreement.ts compares them); a proxy that stops deletes its own, one that dies
 * drops out of sight once its last renewal is older than that.
 */
import { hostname } from 'node:os';
import type { Client } from '@elastic/elasticsearch';
import * as z from 'zod';
import { packageVersion } from '../common/package-version.js';
import type { Logger } from '../common/logger.js';
import type { Config } from '../config/index.js';
import { describeSearchError } from '../search/search-failure.js';
import { answeredWith, ensureIndex } from '../search/shared-state.js';

/** How often a running proxy renews its announcement. */
export const ANNOUNCE_EVERY_MS = 30_000;
/** A proxy whose announcement is older than this is taken for stopped: four renewals missed. */
export const RECENT_MS = 4 * ANNOUNCE_EVERY_MS;
/**
 * How long a stopping service waits for a renewal under way and then for the withdrawal: a cluster that does not
 * answer must not hold the shutdown (the announcement then lapses after RECENT_MS).
 */
const WITHDRAW_MS = 2_000;
/** More proxies than a district runs for one index; doctor reads at most this many. */
const MAX_PROXIES = 1_000;

export const proxyAnnouncementSchema = z.object({
  /** `host:port`: the host name and `http.port`, which tell apart two proxies on one host. */
  proxy: z.string(),
  version: z.string(),
  /** `//server/share` of each entry of `smb.shares`, the server as configured. */
  shares: z.array(z.string()),
  shared_state: z.string(),
  cluster_index_prefix: z.string(),
  /** cluster.event_ids (an announcement of a build before it: shared, the default then as now). */
  event_ids: z.string().default('shared'),
  dedupe_size: z.number(),
  /** When it was last renewed, in epoch milliseconds. */
  seen_at: z.number(),
});

export type ProxyAnnouncement = z.infer<typeof proxyAnnouncementSchema>;

export function announcementsIndex(config: Pick<Config, 'elasticsearch'>): string {
  return `${config.elasticsearch.index_prefix}-proxies`;
}

/** This proxy's announcement as its config says, seen at `now`. */
export function announcementOf(config: Config, now: number): ProxyAnnouncement {
  return {
    proxy: `${hostname()}:${config.http.port}`,
    version: packageVersion(),
    shares: config.smb.shares.map((share) => `//${share.server ?? config.smb.server}/${share.name}`),
    shared_state: config.cluster.shared_state,
    cluster_index_prefix: config.cluster.index_prefix,
    event_ids: config.cluster.event_ids,
    dedupe_size: config.webhooks.dedupe_size,
    seen_at: now,
  };
}

/** Keeps this proxy's announcement in the cluster while the service runs. */
export class ProxyAnnouncer {
  private timer: NodeJS.Timeout | undefined;
  /** The renewal last started (it never rejects). */
  private renewal: Promise<void> = Promise.resolve();
  /** The last renewal failed (logged once until one succeeds again). */
  private failing = false;
  private readonly index: string;
  /** What it announces but the time; the config does not change while the service runs. */
  private readonly announcement: ProxyAnnouncement;

  constructor(
    private readonly client: Client,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.index = announcementsIndex(config);
    this.announcement = announcementOf(config, now());
  }

  /** Announces now and every ANNOUNCE_EVERY_MS; a failure is logged, never thrown: search and WebDAV do not need it. */
  start(): void {
    const renew = () => { this.renewal = this.announce(); };
    renew();
    this.timer = setInterval(renew, ANNOUNCE_EVERY_MS);
    this.timer.unref();
  }

  /** Stops renewing and withdraws the announcement, so that doctor stops counting this proxy at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    // A renewal still under way would write the document again after the delete.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([this.renewal, new Promise((resolve) => { waited = setTimeout(resolve, WITHDRAW_MS); })]);
    clearTimeout(waited);
    try {
      // Answered once a search no longer finds it, so that a doctor run right after this stop leaves it out.
      await this.client.delete({ index: this.index, id: this.announcement.proxy, refresh: 'wait_for' }, { requestTimeout: WITHDRAW_MS, maxRetries: 0 });
    } catch (err) {
      if (!answeredWith(err, 404)) this.log.warn({ index: this.index, ...describeSearchError(err) }, 'proxy announcement not withdrawn; doctor counts this proxy until it lapses (two minutes)');
    }
  }

  private async announce(): Promise<void> {
    try {
      await ensureIndex(this.client, this.index, {
        settings: { number_of_shards: 1, number_of_replicas: this.config.elasticsearch.index.number_of_replicas },
        // Only the renewal time is searched; the rest is read from _source.
        mappings: { dynamic: false, properties: { seen_at: { type: 'date', format: 'epoch_millis' } } },
      });
      await this.client.index({ index: this.index, id: this.announcement.proxy, document: { ...this.announcement, seen_at: this.now() }, refresh: false });
      if (this.failing) this.log.info({ index: this.index }, 'proxy announcement renewed again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log.warn({ index: this.index, ...describeSearchError(err) }, 'proxy announcement not renewed; doctor cannot compare this proxy with the others of its shares');
      this.failing = true;
    }
  }
}

/**
 * The announcements renewed within RECENT_MS of `now`, and the ids of documents of another shape (written by a
 * build that announces otherwise); none when no proxy has announced itself yet (the index is missing).
 */
export async function readAnnouncements(client: Client, index: string, now: number): Promise<{ recent: ProxyAnnouncement[]; unreadable: string[] }> {
  let hits;
  try {
    const found = await client.search({ index, size: MAX_PROXIES, query: { range: { seen_at: { gte: now - RECENT_MS } } } });
    hits = found.hits.hits;
  } catch (err) {
    if (answeredWith(err, 404)) return { recent: [], unreadable: [] };
    throw err;
  }
  const recent: ProxyAnnouncement[] = [];
  const unreadable: string[] = [];
  for (const hit of hits) {
    const parsed = proxyAnnouncementSchema.safeParse(hit._source);
    if (parsed.success) recent.push(parsed.data);
    else unreadable.push(hit._id ?? '(no id)');
  }
  return { recent, unreadable };
}

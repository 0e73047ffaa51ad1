/**
 * The live ACL check of what the index shows: before a search hit, a suggestion or an entry of a page list reaches
 * the caller, the page's security descriptor is read from the file server as the indexer account, and the caller's
 * SIDs are matched against it as the index filter matches them against the indexed ACL (src/search/query.ts,
 * viewerFilter): an allow SID of the caller in its read allows, no SID of the caller's whole token in its read denies.
 *
 * Why: the index learns of an ACL change only when something reports it. A WebDAV write does, but Samba does not
 * report an ACL change below the share root's tree watch (src/indexing/reconciler/share-watch.ts), and a change made on the
 * server's own disk is reported to nobody. Without this check a narrowed ACL would go on showing a page until the
 * next pass (`reconciler.interval`); with it, what a caller is shown was allowed at most `max_age` ago.
 *
 * - A page whose live ACL differs from its indexed one is reported (`stale`), so that the index follows (and with it
 *   the page counts of GET /wiki/roots, which come from the index alone).
 * - A page that is gone, or that the indexer account may no longer open, is hidden (and reported).
 * - When the file server cannot be asked (down, unreachable, the indexer's logon refused), the index decides, as it
 *   did before this check: the specification keeps search results readable while the SMB server is down. The server
 *   is then not asked again for a while (UNREACHABLE_BACKOFF_MS), so that searches do not each wait for a connection that
 *   will not come; the outage is logged once per back-off.
 * A read is shared by the concurrent requests that need the same page, and reused for `max_age`.
 */
import { LRUCache } from 'lru-cache';
import { describeError } from '../common/describe-error.js';
import { silentLog, type Logger } from '../common/logger.js';
import { SmbError, type SecurityDescriptor } from '../smb/index.js';
import { aclFingerprint, deriveAcl, type DocumentAcl } from '../wiki/acl.js';
import type { PageAddress } from '../wiki/page-change.js';
import type { Viewer } from './query.js';

/** An entry as the index gave it: the page and the read ACL the index holds for it. */
export interface IndexedEntry {
  share: string;
  path: string;
  acl_allow: readonly string[];
  acl_deny: readonly string[];
}

interface LiveAclOptions {
  /** The page's security descriptor as the indexer account reads it. */
  readSecurity(page: PageAddress): Promise<SecurityDescriptor>;
  /** The server of each share this service serves. */
  servers: ReadonlyMap<string, string>;
  /** How long a read descriptor is reused, in ms. */
  maxAgeMs: number;
  /**
   * A page whose index entry no longer matches the file server: `changed` (another ACL), the index should read it
   * again; `gone` (deleted, or no longer open to the indexer), the index should drop it.
   */
  stale(page: PageAddress, how: 'changed' | 'gone'): void;
  /** Pages whose descriptor is kept at once (default 10,000). */
  maxEntries?: number;
  /** How long a file server that could not be asked is left alone (default UNREACHABLE_BACKOFF_MS). */
  backoffMs?: number;
  log?: Logger;
}

/** How long a file server that could not be asked is left alone (the index decides meanwhile). */
const UNREACHABLE_BACKOFF_MS = 5_000;

/**
 * What the file server says of a page now: its read ACL, or that it is not there for the indexer any more; or
 * `unknown` when it could not be asked.
 */
type LiveState = DocumentAcl | 'gone' | 'unknown';

/** The errors that say something of the page itself: it is gone, or the indexer may not open it. */
const PAGE_GONE = new Set(['NOT_FOUND', 'ACCESS_DENIED', 'DELETE_PENDING']);

/** A page's read, shared by the requests of its `max_age`; a stale page is reported once per read. */
interface Known {
  state: Promise<LiveState>;
  reported: boolean;
}

interface CheckedEntries<T> {
  visible: T[];
  /** How many of the entries were hidden. */
  hidden: number;
}

export interface LiveAclStats {
  /** Descriptors read from the file server. */
  reads: number;
  /** Entries hidden because the live ACL, unlike the index, refuses the caller (or the page is gone). */
  hidden: number;
  /** Pages reported to the index as stale. */
  stale: number;
  /** Entries the file server could not be asked about (the index decided). */
  unanswered: number;
}

export class LiveAcl {
  private readonly options: LiveAclOptions;
  private readonly log: Logger;
  private readonly states: LRUCache<string, Known>;
  private readonly counts: LiveAclStats = { reads: 0, hidden: 0, stale: 0, unanswered: 0 };
  /** Until when each file server that could not be asked is left alone. */
  private readonly unreachableUntil = new Map<string, number>();

  constructor(options: LiveAclOptions) {
    this.options = options;
    this.log = options.log ?? silentLog;
    this.states = new LRUCache({ max: options.maxEntries ?? 10_000, ttl: Math.max(1, options.maxAgeMs), ttlAutopurge: false });
  }

  /** The entries `viewer` may see now, in their order. */
  async check<T extends IndexedEntry>(entries: readonly T[], viewer: Viewer): Promise<CheckedEntries<T>> {
    if (entries.length === 0) return { visible: [], hidden: 0 };
    const states = await Promise.all(entries.map((entry) => this.stateOf(entry)));
    const allow = new Set(viewer.allowSids);
    const deny = new Set(viewer.denySids);
    const visible: T[] = [];
    entries.forEach((entry, i) => {
      const state = states[i]!;
      // Not asked: the index filter, which let the entry through, decides.
      if (state === 'unknown') {
        this.counts.unanswered++;
        visible.push(entry);
      } else if (state !== 'gone' && !differs(state, entry)) {
        // The same ACL as indexed: the index filter has matched the caller against it already.
        visible.push(entry);
      } else {
        this.reportStale(entry, state === 'gone' ? 'gone' : 'changed');
        if (state !== 'gone' && state.allow.some((sid) => allow.has(sid)) && !state.deny.some((sid) => deny.has(sid))) visible.push(entry);
      }
    });
    const hidden = entries.length - visible.length;
    this.counts.hidden += hidden;
    return { visible, hidden };
  }

  stats(): LiveAclStats {
    return { ...this.counts };
  }

  private stateOf(entry: IndexedEntry): Promise<LiveState> {
    const server = this.options.servers.get(entry.share);
    // The index filter already limits answers to this service's shares; an entry of another is not this one's to show.
    if (server === undefined) return Promise.resolve('gone');
    const key = pageKey(server, entry);
    const known = this.states.get(key);
    if (known !== undefined) return known.state;
    if ((this.unreachableUntil.get(server) ?? 0) > Date.now()) return Promise.resolve('unknown');
    this.counts.reads++;
    const state = this.options.readSecurity({ server, share: entry.share, path: entry.path }).then(
      (sd): LiveState => {
        this.unreachableUntil.delete(server);
        return deriveAcl(sd);
      },
      (error: unknown): LiveState => {
        if (error instanceof SmbError && PAGE_GONE.has(error.code)) return 'gone';
        this.states.delete(key);
        const backoffMs = this.options.backoffMs ?? UNREACHABLE_BACKOFF_MS;
        if ((this.unreachableUntil.get(server) ?? 0) <= Date.now()) {
          this.log.warn({ ...describeError(error), retryInMs: backoffMs }, 'live ACL check: the file server could not be asked; the index decides meanwhile');
        }
        this.unreachableUntil.set(server, Date.now() + backoffMs);
        return 'unknown';
      },
    );
    this.states.set(key, { state, reported: false });
    return state;
  }

  private reportStale(entry: IndexedEntry, how: 'changed' | 'gone'): void {
    const server = this.options.servers.get(entry.share);
    if (server === undefined) return;
    const known = this.states.get(pageKey(server, entry));
    if (known === undefined || known.reported) return;
    known.reported = true;
    this.counts.stale++;
    this.options.stale({ server, share: entry.share, path: entry.path }, how);
  }
}

function pageKey(server: string, entry: IndexedEntry): string {
  return `${server}\0${entry.share}\0${entry.path}`;
}

/** Whether the live ACL is another than the one the index holds for the entry. */
function differs(live: DocumentAcl, entry: IndexedEntry): boolean {
  return aclFingerprint(live) !== aclFingerprint({ allow: [...entry.acl_allow], deny: [...entry.acl_deny] });
}

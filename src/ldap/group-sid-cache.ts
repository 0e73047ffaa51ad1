import { LRUCache } from 'lru-cache';

export interface GroupSidResolver {
  /** Group name → SID; unknown names are absent. */
  resolveGroupSids(names: readonly string[]): Promise<Map<string, string>>;
}

interface GroupSidCacheOptions {
  /** `ldap.cache_ttl` in ms: how long a resolved name is trusted. */
  readonly ttlMs: number;
  /** `ldap.negative_cache_ttl` in ms: how long an unknown name stays unknown. */
  readonly negativeTtlMs: number;
  readonly maxEntries?: number;
  /** Clock for expiry; injectable for tests. */
  readonly now?: () => number;
}

/**
 * Group-name → SID resolution with a cache in front, because every wiki search translates the
 * caller's groups. Names are cached case-insensitively, as the directory matches them; unknown
 * names are remembered for the shorter negative TTL so that a newly created group shows up soon.
 * All names missing from the cache go to the directory in one call. Directory errors propagate
 * (callers fail closed) and are not cached.
 */
export class CachedGroupSidResolver implements GroupSidResolver {
  private readonly cache: LRUCache<string, { sid: string | undefined }>;
  private readonly now: () => number;

  constructor(private readonly directory: GroupSidResolver, private readonly options: GroupSidCacheOptions) {
    const now = this.now = options.now ?? Date.now;
    this.cache = new LRUCache({
      max: options.maxEntries ?? 10_000,
      ttl: options.ttlMs,
      perf: { now },
      ttlResolution: 0, // always ask the clock, so an injected clock takes effect at once
    });
  }

  /**
   * Until when (ms since the epoch) every one of these names stays cached as it is now; 0 when one is not cached
   * (an answer made from it must not be reused).
   */
  cachedUntil(names: readonly string[]): number {
    let until = Infinity;
    for (const name of names) {
      if (name === '') continue;
      const left = this.cache.getRemainingTTL(name.toLowerCase());
      if (left <= 0) return 0;
      until = Math.min(until, this.now() + left);
    }
    return until;
  }

  async resolveGroupSids(names: readonly string[]): Promise<Map<string, string>> {
    const misses = names.filter((name) => name !== '' && !this.cache.has(name.toLowerCase()));
    if (misses.length > 0) {
      const found = new Map(
        [...(await this.directory.resolveGroupSids(misses))].map(([name, sid]) => [name.toLowerCase(), sid]),
      );
      for (const name of misses) {
        const sid = found.get(name.toLowerCase());
        this.cache.set(name.toLowerCase(), { sid }, { ttl: sid === undefined ? this.options.negativeTtlMs : this.options.ttlMs });
      }
    }
    const resolved = new Map<string, string>();
    for (const name of names) {
      const sid = this.cache.get(name.toLowerCase())?.sid;
      if (sid !== undefined) resolved.set(name, sid);
    }
    return resolved;
  }
}

/**
 * The wiki endpoints of a running service as the integration tests use them, and the oracle the answers are
 * compared with: who may see a page, worked out from the ACL a test gave it (independently of the service's code).
 */
import assert from 'node:assert/strict';
import type { PassSummary } from '../../../actors/reconciler/metrics.js';
import type { HealthReport } from '../../../src/runtime/health.js';
import type { RootListing, PageListing, SearchResult, SuggestResult } from '../../../src/search/search.js';
import type { TestbedEnv } from '../../testbed/env.js';
import { shareContents, alwaysGranted } from '../../testbed/wiki-content.js';
import { waitFor, type RunningService } from '../../support/service.js';

/** A caller: a testbed account and the group names the browser-facing API would send for it. */
export interface Caller {
  user: string;
  /** Group names for X-Service-Groups; undefined sends no header. */
  groups: string[] | undefined;
  /** A trusted caller (wiki.trusted_callers): the call carries its credentials and names `user` in X-Service-User. */
  via?: { name: string; password: string };
}

/** Names as the testbed ACLs use them: groups, accounts, and these well-known principals. */
export const EVERYONE = 'Everyone';
export const AUTHENTICATED_USERS = 'Authenticated Users';
export const DOMAIN_USERS = 'Domain Users';

/** Who may read a page: principals of allow entries that grant read, principals of deny entries. */
export interface ReadAcl {
  allow: string[];
  deny: string[];
}

/** The header value: names percent-encoded as UTF-8, comma-separated (the documented format). */
export function groupsHeader(groups: readonly string[]): string {
  return groups.map((name) => encodeURIComponent(name)).join(',');
}

/** Principals (lower-cased names) a caller's allow and deny entries are matched with. */
export interface CallerPrincipals {
  allow: ReadonlySet<string>;
  deny: ReadonlySet<string>;
}

/**
 * The principals a caller's search must match, by the service's documented identity rule. Allow: header groups
 * count only when the account is a member; when one counts, the account, Domain Users, Everyone and Authenticated
 * Users join; no counted group: nothing. Deny: the account's whole token, whatever the header says.
 */
export function principalsOf(env: TestbedEnv, caller: Caller): CallerPrincipals {
  const membership = [...env.users[caller.user]!.groups, DOMAIN_USERS];
  const token = [caller.user, ...membership, EVERYONE, AUTHENTICATED_USERS];
  const counted = (caller.groups ?? []).filter((g) => membership.some((m) => m.toLowerCase() === g.toLowerCase()));
  const allow = counted.length === 0 ? [] : [caller.user, ...counted, DOMAIN_USERS, EVERYONE, AUTHENTICATED_USERS];
  const lowerSet = (names: string[]) => new Set(names.map((p) => p.toLowerCase()));
  return { allow: lowerSet(allow), deny: lowerSet(token) };
}

export function maySee(acl: ReadAcl, principals: CallerPrincipals): boolean {
  return !acl.deny.some((p) => principals.deny.has(p.toLowerCase())) && acl.allow.some((p) => principals.allow.has(p.toLowerCase()));
}

/** The read ACL of every testbed wiki page (`share:path`), from the folder ACLs of test/testbed/wiki-content.ts. */
export function testbedPageAcls(): Map<string, ReadAcl> {
  const acls = new Map<string, ReadAcl>();
  for (const content of shareContents) {
    const ownAcl = new Map(content.folders.filter((f) => f.acl).map((f) => [f.path, f.acl!]));
    for (const path of Object.keys(content.files)) {
      if (!/(^|\/)\.wiki\/[^/]+\.md$/.test(path)) continue;
      // The nearest folder with an own ACL decides (files and folders without one inherit).
      let folder = path.split('/').slice(0, -1);
      while (!ownAcl.has(folder.join('/'))) folder = folder.slice(0, -1);
      const grants = [...ownAcl.get(folder.join('/'))!, ...alwaysGranted];
      acls.set(`${content.share}:${path}`, {
        allow: grants.filter((g) => !g.deny).map((g) => g.principal),
        deny: grants.filter((g) => g.deny).map((g) => g.principal),
      });
    }
  }
  return acls;
}

export interface WikiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls to one service's wiki endpoints as testbed accounts. */
export class WikiClient {
  constructor(
    readonly url: string,
    private readonly env: TestbedEnv,
  ) {}

  authorization(user: string, password = this.env.users[user]?.password ?? ''): string {
    return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  async request<T>(path: string, init: { caller?: Caller; method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<WikiResponse<T>> {
    const headers: Record<string, string> = { ...init.headers };
    const via = init.caller?.via;
    if (via) {
      headers['authorization'] ??= this.authorization(via.name, via.password);
      headers['x-service-user'] ??= encodeURIComponent(init.caller!.user);
    }
    if (init.caller) {
      headers['authorization'] ??= this.authorization(init.caller.user);
      if (init.caller.groups !== undefined) headers['x-service-groups'] ??= groupsHeader(init.caller.groups);
    }
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${this.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  }

  private async ok<T>(path: string, init: Parameters<WikiClient['request']>[1]): Promise<T> {
    const res = await this.request<T>(path, init);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  search(caller: Caller, request: Record<string, unknown>): Promise<SearchResult> {
    return this.ok('/wiki/search', { caller, body: request });
  }

  suggest(caller: Caller, query: Record<string, string>): Promise<SuggestResult> {
    return this.ok(`/wiki/suggest?${new URLSearchParams(query)}`, { caller });
  }

  roots(caller: Caller): Promise<RootListing> {
    return this.ok('/wiki/roots', { caller });
  }

  pages(caller: Caller, share: string, folder: string): Promise<PageListing> {
    return this.ok(`/wiki/pages?${new URLSearchParams({ share, folder })}`, { caller });
  }

  /**
   * Every page the caller can list (`share:path`), through the roots and each root's pages, sorted; of the scratch
   * folders (`_…`) only `scratch`, the calling file's own.
   */
  async listedPages(caller: Caller, { scratch }: { scratch?: string } = {}): Promise<string[]> {
    const listed: string[] = [];
    for (const root of (await this.roots(caller)).roots) {
      // Other test files' scratch folders (`_…`, the parallel tier's) change while this walks them.
      if (root.folder.startsWith('_') && root.folder.split('/')[0] !== scratch) continue;
      const { pages } = await this.pages(caller, root.share, root.folder);
      assert.equal(root.has_start_page, pages.some((p) => p.is_start_page), `${root.share}:${root.folder} start page`);
      assert.equal(root.pages, pages.length, `${root.share}:${root.folder} page count`);
      listed.push(...pages.map((p) => `${root.share}:${p.path}`));
    }
    return listed.sort();
  }

  /**
   * Hits of a search as `share:path`, sorted: the pages that have the words. An answer of the typo rule (`corrected`:
   * pages with similar words, e.g. Livewortzeta for Livewortdelta) counts as none.
   */
  async searchedPages(caller: Caller, request: Record<string, unknown>): Promise<string[]> {
    const result = await this.search(caller, { size: 100, ...request });
    assert.equal(result.degraded, undefined, 'search is not degraded');
    assert.equal(result.total, result.hits.length, 'all hits on one page');
    return result.corrected ? [] : result.hits.map((h) => `${h.share}:${h.path}`).sort();
  }
}

/** The reconciler's health details. */
export interface ReconcilerDetails {
  /** Only with `elasticsearch.enabled: false`: why there is no index. */
  wiki?: string;
  status: string;
  index: string | null;
  analyzer: string | null;
  dropped: number;
  passes: number;
  lastPass: PassSummary | null;
  hook: { queued: number; running: number; dropped: number; failed: number };
  bulk: { upserted: number; deleted: number };
}

export async function reconcilerDetails(service: RunningService): Promise<ReconcilerDetails> {
  const report = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
  return report.actors['reconciler']!.details as unknown as ReconcilerDetails;
}

/**
 * Waits until the post-write hook has nothing left to do or deliver (its batches go within moments: a group commit): nothing queued
 * or running, and its delivered counts unchanged over 700 ms. Returns the details then.
 */
export async function hookSettled(service: RunningService): Promise<ReconcilerDetails> {
  let last = await reconcilerDetails(service);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 700));
    const now = await reconcilerDetails(service);
    const idle = now.hook.queued === 0 && now.hook.running === 0;
    if (idle && now.bulk.deleted === last.bulk.deleted && now.bulk.upserted === last.bulk.upserted) return now;
    last = now;
  }
}

/** Waits for a reconciler pass that started at or after `since` (ms) and finished; returns its summary. */
export async function passAfter(service: RunningService, since: number, timeoutMs = 60_000): Promise<PassSummary> {
  let pass: PassSummary | null = null;
  await waitFor(async () => {
    pass = (await reconcilerDetails(service)).lastPass;
    return pass !== null && Date.parse(pass.startedAt) >= since;
  }, timeoutMs);
  return pass!;
}

/** Polls until `check` holds: the index is refreshed about once a second, so fresh writes show up shortly. */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

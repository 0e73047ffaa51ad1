// The wiki endpoints: POST /wiki/search, GET /wiki/suggest, GET /wiki/roots, GET /wiki/pages.
// Every call needs basic credentials, or a Kerberos ticket for the service
// (HTTP Negotiate, src/auth/negotiate.ts) where kerberos.delegation.http_spn
// is configured; the ldap-resolver (or, warm, this
// thread's copy of its answer: src/viewer/viewer-cache.ts) turns them and the
// X-Service-Groups header into the SIDs allow entries are matched with
// (narrowed by the header), the SIDs deny entries are matched with (the
// user's whole token) and the visible shares (without a header, or with no
// resolvable group, the allow set is empty: no hits, never an error). With
// X-Service-User a trusted caller calls on behalf of the named user
// (src/viewer/service-user.ts); when the directory knows no such user, every
// answer is empty and says so in `no_access`.
// Elasticsearch is queried from this thread (async I/O); when it is
// down the answer is empty with "degraded": true. Each entry of an answer
// is then checked against the page's ACL on the file server (wiki.live_acl,
// src/search/live-acl.ts), read as the indexer account on this thread's SMB
// client, the one WebDAV uses. With
// `elasticsearch.enabled: false` every wiki endpoint answers 404 and no
// Elasticsearch client is created.
import type { Logger } from '../common/logger.js';
import { parseBasicAuth } from '../auth/basic.js';
import { isNegotiate, type NegotiateAuth } from '../auth/negotiate.js';
import type { Config } from '../config/index.js';
import { BASIC_CHALLENGE, challengeHeader, negotiateChallenge } from '../http/challenges.js';
import type { HttpExchange } from '../http/exchange.js';
import { HttpError } from '../http/http-error.js';
import { readJsonObject } from '../http/json-body.js';
import type { RouteHandler, Router } from '../http/router.js';
import { IndexerShares } from '../logon/indexer-shares.js';
import type { SmbLogons } from '../logon/smb-logons.js';
import type { PeerLink } from '../runtime/actor.js';
import type { ServiceSecrets } from '../runtime/control.js';
import type { Remote } from '../runtime/rpc.js';
import { searchClientFromConfig } from './client.js';
import { LiveAcl, type LiveAclStats } from './live-acl.js';
import type { SmbClient } from '../smb/index.js';
import { checkFolder, parseSearchRequest, parseSuggestRequest, SearchRequestError, type Viewer } from './query.js';
import { WikiSearch } from './search.js';
import type { NoAccessReason, ViewerQuery } from '../viewer/viewer.js';
import { SERVICE_GROUPS_HEADER } from '../viewer/principal.js';
import { SERVICE_USER_HEADER } from '../viewer/service-user.js';
import { resolverViewerCache, type ViewerSource } from '../viewer/resolver-answers.js';
import { unavailableAs503 } from '../runtime/unavailable-as-503.js';
import type { PageChangeSink } from '../wiki/page-change.js';

interface WikiRouteDeps {
  readonly config: Pick<Config, 'elasticsearch' | 'smb' | 'wiki'>;
  readonly secrets: ServiceSecrets;
  readonly resolver: Remote<ViewerSource>;
  readonly resolverLink: PeerLink;
  /** HTTP Negotiate (kerberos.delegation.http_spn), or null when it is not configured. */
  readonly negotiate: NegotiateAuth | null;
  /** Told of pages whose index entry the live ACL check found stale. */
  readonly reconciler: Remote<PageChangeSink>;
  /** This thread's SMB client and logons (WebDAV's): the live ACL check reads as the indexer account with them. */
  readonly smb: { client: SmbClient; logons: SmbLogons };
  readonly log: Logger;
}

/** What the front shows of its wiki routes: the live ACL check's counts, null when it is off. */
export interface WikiRoutes {
  liveAcl(): LiveAclStats | null;
}

/** Who calls, as the front authenticated them: Basic credentials, or the user of an accepted Kerberos ticket. */
type WikiCaller = Pick<ViewerQuery, 'user' | 'password' | 'negotiated'>;

/** A search request is a few hundred bytes; this leaves room without inviting large bodies. */
const SEARCH_BODY_LIMIT = 16 * 1024;
const NO_STORE = { 'cache-control': 'no-store' };
const PATHS = { search: '/wiki/search', suggest: '/wiki/suggest', roots: '/wiki/roots', pages: '/wiki/pages' } as const;

export function registerWikiRoutes(router: Router, deps: WikiRouteDeps): WikiRoutes {
  if (!deps.config.elasticsearch.enabled) {
    const off: RouteHandler = () => {
      throw new HttpError(404, 'wiki_disabled', 'the wiki is turned off on this host (elasticsearch.enabled is false in config.yml)');
    };
    router.add('POST', PATHS.search, off, { bodyLimit: SEARCH_BODY_LIMIT });
    router.add('GET', PATHS.suggest, off);
    router.add('GET', PATHS.roots, off);
    router.add('GET', PATHS.pages, off);
    return { liveAcl: () => null };
  }
  const { index_prefix: alias } = deps.config.elasticsearch;
  // Other proxies may write to the same index: this one searches only the (server, share) pairs it serves.
  const { smb } = deps.config;
  const servers = new Map(smb.shares.map((share) => [share.name, (share.server ?? smb.server)!]));
  const liveAcl = deps.config.wiki.live_acl.enabled ? liveAclOf(deps, servers) : undefined;
  const search = new WikiSearch({
    client: searchClientFromConfig(deps.config.elasticsearch, deps.secrets.elasticsearch, 'search'), alias, servers, log: deps.log, ...(liveAcl ? { liveAcl } : {}),
  });
  const viewers = resolverViewerCache(deps.resolver, deps.resolverLink);

  /**
   * Who is asking; 401 without valid credentials, 400 for a malformed header or a technical account without
   * X-Service-User, 403 for X-Service-User from an untrusted caller, 503 without a directory.
   */
  const challenge = deps.negotiate ? negotiateChallenge(BASIC_CHALLENGE) : BASIC_CHALLENGE;
  const wikiCall = callOf(deps.negotiate, challenge);
  const viewerOf = async (credentials: WikiCaller, ex: HttpExchange): Promise<Viewer & { noAccess?: NoAccessReason }> => {
    const groupsHeader = ex.headers[SERVICE_GROUPS_HEADER];
    const serviceUserHeader = ex.headers[SERVICE_USER_HEADER];
    const answer = await viewers.resolve({ ...credentials, groupsHeader, serviceUserHeader, clientAddress: ex.clientAddress });
    if (!answer.ok) {
      const headers = answer.status === 429 ? { 'retry-after': String(answer.retryAfterSeconds) } : challengeFor(answer.status, challenge);
      throw new HttpError(answer.status, answer.error, answer.message, headers);
    }
    const { allowSids, denySids, shares, noAccess } = answer;
    return { allowSids, denySids, shares, ...(noAccess === undefined ? {} : { noAccess }) };
  };
  /** The answer, with `no_access` when the named user is unknown, which is why it is empty. */
  const answered = <T extends object>(result: T, viewer: { noAccess?: NoAccessReason }) =>
    viewer.noAccess === undefined ? result : { ...result, no_access: viewer.noAccess };

  router.add('POST', PATHS.search, wikiCall(async (ex, credentials) => {
    const body = await readJsonObject(ex);
    const request = validated(() => parseSearchRequest(body));
    const viewer = await viewerOf(credentials, ex);
    ex.json(200, answered(await search.search(request, viewer), viewer), NO_STORE);
  }), { bodyLimit: SEARCH_BODY_LIMIT });

  router.add('GET', PATHS.suggest, wikiCall(async (ex, credentials) => {
    const request = validated(() => parseSuggestRequest(ex.query));
    const viewer = await viewerOf(credentials, ex);
    ex.json(200, answered(await search.suggest(request, viewer), viewer), NO_STORE);
  }));

  router.add('GET', PATHS.roots, wikiCall(async (ex, credentials) => {
    const viewer = await viewerOf(credentials, ex);
    ex.json(200, answered(await search.listRoots(viewer), viewer), NO_STORE);
  }));

  router.add('GET', PATHS.pages, wikiCall(async (ex, credentials) => {
    const share = ex.query.get('share');
    if (share === null || share.trim() === '') throw new HttpError(400, 'invalid_request', 'share: is required');
    const folder = ex.query.get('folder') ?? '';
    validated(() => checkFolder(folder));
    const viewer = await viewerOf(credentials, ex);
    ex.json(200, answered(await search.listPages(share, folder, viewer), viewer), NO_STORE);
  }));
  return { liveAcl: () => liveAcl?.stats() ?? null };
}

/** The live ACL check of this thread: descriptors read as the indexer account, stale pages sent to the hook. */
function liveAclOf(deps: WikiRouteDeps, servers: ReadonlyMap<string, string>): LiveAcl {
  const shares = new IndexerShares(deps.smb.client, deps.smb.logons, deps.config.smb.port, deps.secrets);
  return new LiveAcl({
    readSecurity: (page) => shares.get(page.server, page.share).getSecurity(page.path),
    servers,
    maxAgeMs: deps.config.wiki.live_acl.max_age,
    // Through the post-write hook, the new ACL or the page's absence reaches the index (and the counts of /wiki/roots).
    stale: (page, how) => void deps.reconciler.pageChanged(how === 'gone' ? { type: 'page-deleted', page } : { type: 'page-written', page }).catch(() => undefined),
    log: deps.log,
  });
}

/**
 * The caller first (401 with a challenge before anything else: Basic credentials, or a Negotiate token that is
 * checked here and whose AP-REP goes with the answer), then the call; a down actor is a 503.
 */
function callOf(negotiate: NegotiateAuth | null, challenge: string) {
  const callerOf = async (ex: HttpExchange): Promise<WikiCaller> => {
    const authorization = ex.headers['authorization'];
    if (isNegotiate(authorization) && negotiate) {
      const client = await negotiate.authenticate(authorization!, challenge).catch((err: unknown) => {
        throw unavailableAs503(err);
      });
      if (client.wwwAuthenticate) ex.commonHeaders['www-authenticate'] = client.wwwAuthenticate;
      return { user: client.user, password: '', negotiated: { sid: client.sid } };
    }
    const credentials = parseBasicAuth(authorization);
    if (!credentials.ok) {
      const status = credentials.error === 'malformed' ? 400 : 401;
      throw new HttpError(status, status === 400 ? 'bad_credentials_format' : 'credentials_required', credentials.message, challengeFor(status, challenge));
    }
    return { user: credentials.user, password: credentials.password };
  };
  return (work: (ex: HttpExchange, credentials: WikiCaller) => Promise<void>): RouteHandler => async (ex) => {
    const credentials = await callerOf(ex);
    try {
      await work(ex, credentials);
    } catch (err) {
      throw unavailableAs503(err);
    }
  };
}

function challengeFor(status: number, challenge: string): Record<string, string> {
  return status === 401 ? challengeHeader(challenge) : {};
}

/** Runs a validation; a SearchRequestError becomes a 400 whose message starts with the field's name. */
function validated<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof SearchRequestError) throw new HttpError(400, 'invalid_request', err.message);
    throw err;
  }
}

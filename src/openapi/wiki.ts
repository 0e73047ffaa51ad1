// OpenAPI paths and schemas of the wiki: search and listings (src/search/routes.ts) and
// the admin API of each share's wiki visibility (admin-wiki-visibility.ts).

import { SERVICE_USER_RULES } from '../viewer/service-user.js';
import { adminResponses, BODY_413, BODY_415, error, NEGOTIATE_401_CODES, USER_CHALLENGE, JSON_BODY_400, jsonBody, ok, operation, ref, RETRY_AFTER, THROTTLED_429, type Json } from './shared.js';

const WIKI_GROUPS = {
  name: 'X-Service-Groups', in: 'header', required: false,
  description: 'Directory group names of the user, each percent-encoded as UTF-8, separated by commas. Without it (or with no group the user is a member of) every answer is empty.',
  schema: { type: 'string' },
};

const WIKI_SERVICE_USER = {
  name: 'X-Service-User', in: 'header', required: false,
  description: 'Only from an account of wiki.trusted_callers (else 403), which must send it (else 400): the user the call is for, '
    + 'as sAMAccountName or userPrincipalName, percent-encoded as UTF-8; the basic credentials are then the trusted caller\'s, '
    + 'and the answer is what that user\'s own login gets. Without it the basic credentials are the user\'s.',
  schema: { type: 'string' },
};

/** The 403 of a trusted caller naming an account it may not act for (src/viewer/service-user.ts, ServiceUserRule). */
export const SERVICE_USER_REFUSALS = SERVICE_USER_RULES.map((rule) => `service_user_${rule}`);

/** Why the user named in X-Service-User sees nothing (src/viewer/viewer.ts, NoAccessReason). */
const NO_ACCESS = {
  enum: ['user_unknown'],
  description: 'Only on a call with X-Service-User: the named user sees nothing (fail-closed) because the directory has no such user; '
    + 'the lists are then empty (an account the directory would not let log on is a 403 service_user_<state>)',
};

const wikiResponses = (own: Record<string, Json>, extra400: readonly string[] = []): Record<string, Json> => ({
  ...own,
  '400': error('Bad request; service_user_required: a technical account (wiki.trusted_callers, the indexer account) called without X-Service-User', [
    'bad_credentials_format', 'bad_groups_header', 'bad_service_user_header', 'service_user_required', 'invalid_request', ...extra400,
  ]),
  '401': error('Basic credentials missing or wrong, or a Negotiate token refused', ['credentials_required', 'invalid_credentials', ...NEGOTIATE_401_CODES], USER_CHALLENGE),
  '403': error(
    'X-Service-User from an account that is not in wiki.trusted_callers, or naming an account a trusted caller may not call on behalf of '
      + '(src/viewer/service-user.ts: a computer, krbtgt, the indexer, a trusted caller, NOT_DELEGATED, Protected Users, an admin group, '
      + 'or an account that cannot log on now: disabled, locked out, expired, password expired)',
    ['untrusted_caller', ...SERVICE_USER_REFUSALS],
  ),
  '404': error('The wiki is turned off on this host (elasticsearch.enabled is false)', ['wiki_disabled']),
  '429': THROTTLED_429,
  '503': error('The directory or an actor is unavailable, or too many Negotiate logons within the clock skew window; retry', ['directory_unavailable', 'service_unavailable', 'negotiate_busy'], RETRY_AFTER),
});

export const wikiPaths = {
  '/edu-api/admin/wiki-visibility': {
    get: operation({
      operationId: 'listWikiVisibility',
      summary: 'Wiki visibility of every configured share',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      responses: adminResponses({ '200': ok('Every share with its settings', ref('WikiVisibilityList')) }),
    }),
  },
  '/edu-api/admin/wiki-visibility/{share}': {
    put: operation({
      operationId: 'setWikiVisibility',
      summary: 'Turn a share\'s wiki on or off and set its access groups',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      parameters: [{ name: 'share', in: 'path', required: true, description: 'Percent-encoded share name', schema: { type: 'string' } }],
      requestBody: { required: true, content: jsonBody(ref('WikiVisibilityUpdate')) },
      responses: adminResponses({
        '200': ok('The stored settings', ref('ShareVisibility')),
        '404': error('Not a share of smb.shares', ['share_not_found']),
        '413': BODY_413,
        '415': BODY_415,
      }, [...JSON_BODY_400, 'invalid_request']),
    }),
  },
  '/wiki/search': {
    post: operation({
      operationId: 'searchWiki',
      summary: 'Full-text search over the pages the caller may see, with snippets',
      tags: ['Wiki'],
      security: [{ basicAuth: [] }, { negotiateAuth: [] }],
      parameters: [WIKI_GROUPS, WIKI_SERVICE_USER],
      requestBody: { required: true, content: jsonBody(ref('SearchRequest')) },
      responses: wikiResponses({
        '200': ok('Hits; empty with degraded: true while Elasticsearch is unavailable', ref('SearchResult')),
        '413': error('Request body over 16 KiB', ['body_too_large']),
        '415': BODY_415,
      }, JSON_BODY_400),
    }),
  },
  '/wiki/suggest': {
    get: operation({
      operationId: 'suggestWiki',
      summary: 'Suggestions as you type: titles and headings of the pages the caller may see that match the words typed so far',
      description: 'Every word must occur in the title or in one heading, the last one as the start of a word; the words are analysed '
        + 'as the index is (Häu finds Häuser, Schue finds Schüler). The same permission filter and the same authentication as search.',
      tags: ['Wiki'],
      security: [{ basicAuth: [] }, { negotiateAuth: [] }],
      parameters: [
        WIKI_GROUPS,
        WIKI_SERVICE_USER,
        { name: 'q', in: 'query', required: true, description: 'What has been typed so far', schema: { type: 'string', minLength: 1, maxLength: 100 } },
        { name: 'share', in: 'query', required: false, description: 'Only this share', schema: { type: 'string', minLength: 1 } },
        { name: 'size', in: 'query', required: false, description: 'Most suggestions', schema: { type: 'integer', minimum: 1, maximum: 20, default: 8 } },
      ],
      responses: wikiResponses({ '200': ok('Suggestions, best first; empty with degraded: true while Elasticsearch is unavailable', ref('SuggestResult')) }),
    }),
  },
  '/wiki/roots': {
    get: operation({
      operationId: 'listWikiRoots',
      summary: 'Every share and folder with a wiki page the caller may see (also the health-check target of the browser-facing API)',
      tags: ['Wiki'],
      security: [{ basicAuth: [] }, { negotiateAuth: [] }],
      parameters: [WIKI_GROUPS, WIKI_SERVICE_USER],
      responses: wikiResponses({ '200': ok('The wiki roots', ref('RootListing')) }),
    }),
  },
  '/wiki/pages': {
    get: operation({
      operationId: 'listWikiPages',
      summary: 'The pages of one folder\'s wiki the caller may see, start page first',
      tags: ['Wiki'],
      security: [{ basicAuth: [] }, { negotiateAuth: [] }],
      parameters: [
        WIKI_GROUPS,
        WIKI_SERVICE_USER,
        { name: 'share', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
        { name: 'folder', in: 'query', required: false, description: 'Share-relative folder; empty or absent for the share root', schema: { type: 'string' } },
      ],
      responses: wikiResponses({ '200': ok('The pages', ref('PageListing')) }),
    }),
  },
};

export const wikiSchemas = {
  ShareVisibility: {
    type: 'object', required: ['share', 'active', 'access_groups'], additionalProperties: false,
    properties: {
      share: { type: 'string' },
      active: { type: 'boolean' },
      access_groups: { type: 'array', items: { type: 'string' }, description: 'Directory groups; empty: every user' },
    },
  },
  WikiVisibilityList: {
    type: 'object', required: ['shares'], additionalProperties: false,
    properties: { shares: { type: 'array', items: ref('ShareVisibility') } },
  },
  WikiVisibilityUpdate: {
    type: 'object', required: ['active'], additionalProperties: false,
    properties: {
      active: { type: 'boolean' },
      access_groups: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } },
    },
  },
  SearchRequest: {
    type: 'object', required: ['q'], additionalProperties: false,
    properties: {
      q: { type: 'string', minLength: 1, maxLength: 500 },
      share: { type: ['string', 'null'] },
      folder: { type: ['string', 'null'], description: 'Only this folder and below; needs share' },
      from: { type: 'integer', minimum: 0, default: 0 },
      size: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    },
  },
  SearchResult: {
    type: 'object', required: ['total', 'hits'], additionalProperties: false,
    properties: {
      total: { type: 'integer', minimum: 0, description: 'Pages that match, counted up to 10,000 (as far as from + size reaches)' },
      total_at_least: { const: true, description: 'More pages match than were counted: total is a lower bound' },
      hits: { type: 'array', items: ref('SearchHit') },
      corrected: {
        const: true,
        description: 'No visible page had every word as typed: these hits are from a second try that allows typos, per word '
          + '(after analysis) no change under 4 letters, one changed, added, left out or swapped letter from 4 to 6, two from 7 on',
      },
      degraded: { const: true, description: 'Elasticsearch could not answer; the lists are empty' },
      no_access: NO_ACCESS,
    },
  },
  SearchHit: {
    type: 'object',
    required: ['share', 'folder', 'page', 'path', 'title', 'snippet', 'score', 'modified'],
    additionalProperties: false,
    properties: {
      share: { type: 'string' },
      folder: { type: 'string', description: 'Folder holding the page\'s .wiki/ (empty: share root)' },
      page: { type: 'string' },
      path: { type: 'string' },
      title: { type: 'string', description: 'Plain text' },
      snippet: { type: 'string', description: 'HTML: page text escaped, matches in <mark>' },
      score: { type: 'number' },
      modified: { type: 'string', format: 'date-time' },
    },
  },
  SuggestResult: {
    type: 'object', required: ['suggestions'], additionalProperties: false,
    properties: {
      suggestions: {
        type: 'array',
        items: {
          type: 'object', required: ['text', 'kind', 'share', 'folder', 'page', 'path'], additionalProperties: false,
          properties: {
            text: { type: 'string', description: 'The page\'s title or one of its headings, plain text as written' },
            kind: { enum: ['title', 'heading'] },
            share: { type: 'string' },
            folder: { type: 'string', description: 'Folder holding the page\'s .wiki/ (empty: share root)' },
            page: { type: 'string' },
            path: { type: 'string' },
          },
        },
      },
      degraded: { const: true, description: 'Elasticsearch could not answer; the list is empty' },
      no_access: NO_ACCESS,
    },
  },
  RootListing: {
    type: 'object', required: ['roots'], additionalProperties: false,
    properties: {
      roots: {
        type: 'array',
        items: {
          type: 'object', required: ['share', 'folder', 'pages', 'has_start_page'], additionalProperties: false,
          properties: {
            share: { type: 'string' },
            folder: { type: 'string' },
            pages: { type: 'integer', minimum: 1 },
            has_start_page: { type: 'boolean' },
          },
        },
      },
      degraded: { const: true },
      no_access: NO_ACCESS,
    },
  },
  PageListing: {
    type: 'object', required: ['total', 'pages'], additionalProperties: false,
    properties: {
      total: { type: 'integer', minimum: 0 },
      pages: {
        type: 'array',
        items: {
          type: 'object', required: ['page', 'path', 'title', 'modified', 'is_start_page'], additionalProperties: false,
          properties: {
            page: { type: 'string' },
            path: { type: 'string' },
            title: { type: 'string' },
            modified: { type: 'string', format: 'date-time' },
            is_start_page: { type: 'boolean' },
          },
        },
      },
      degraded: { const: true },
      no_access: NO_ACCESS,
    },
  },
};

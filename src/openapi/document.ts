// The OpenAPI 3.1 description of every HTTP endpoint of the service, served
// at GET /openapi.json. Response schemas follow the route code in
// actors/http-front/routes/; the integration tests validate every response
// they receive against this document (test/support/openapi-check.ts).
//
// WebDAV methods beyond OpenAPI's fixed set (PROPFIND, MKCOL, COPY, ...) are
// described under `x-additional-operations`, shaped like OpenAPI 3.2's
// `additionalOperations`.

import { DAV_RESPONSE_HEADERS } from '../webdav/active-content.js';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: Json): Json => ({ 'application/json': { schema } });

/** An answer in the service's error shape; `codes` lists the `error` values this status carries here. */
function error(description: string, codes: readonly string[], headers?: Json): Json {
  return {
    description: `${description} (error: ${codes.join(', ')})`,
    ...(headers ? { headers } : {}),
    content: jsonBody(ref('Error')),
  };
}

const ok = (description: string, schema: Json, headers?: Json): Json => ({
  description, ...(headers ? { headers } : {}), content: jsonBody(schema),
});

const header = (description: string, schema: Json = { type: 'string' }): Json => ({ description, schema });
const CHALLENGE = { 'WWW-Authenticate': header('Basic realm="edu-fileproxy"') };
const ADMIN_CHALLENGE = { 'WWW-Authenticate': header('Basic realm="edu-fileproxy admin" (a realm of its own: a browser keeps these credentials apart from those of /dav/ and the wiki)') };
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^[0-9]+$' }) };

/** The login throttle (src/auth/login-throttle.ts), on every endpoint with Basic credentials. */
const THROTTLED_429 = error('Too many failed logins for this user or from this address; the directory was not asked. Retry after Retry-After seconds', ['too_many_failed_logins'], RETRY_AFTER);

const INTERNAL = error('Internal error; see the service log', ['internal_error']);
const SHUTTING_DOWN_CODE = 'shutting_down';

/**
 * Every endpoint may answer 500 (a bug) and 503 while the service shuts down. An operation that
 * documents its own 503 with another schema accepts the error shape there too.
 */
function withCommon(responses: Record<string, Json>): Record<string, Json> {
  const all: Record<string, Json> = { ...responses, '500': responses['500'] ?? INTERNAL };
  const own = responses['503'];
  if (own === undefined) {
    all['503'] = error('The service is shutting down', [SHUTTING_DOWN_CODE], RETRY_AFTER);
  } else {
    const content = own['content'] as Record<string, { schema: Json }>;
    const schema = content['application/json']!.schema;
    if (schema['$ref'] !== ref('Error')['$ref']) {
      all['503'] = { ...own, content: jsonBody({ anyOf: [schema, ref('Error')] }) };
    }
  }
  return all;
}

function operation(op: Json & { responses: Record<string, Json> }): Json {
  return { ...op, responses: withCommon(op.responses) };
}

// ---- the admin and user-event logins (actors/webhook-store/logins.ts, src/auth/http.ts) -------------

const AUTH_401 = error('Credentials missing or wrong', ['invalid_credentials'], CHALLENGE);
const ADMIN_401 = error('Credentials missing or wrong', ['invalid_credentials'], ADMIN_CHALLENGE);
const ADMIN_403 = error('Authenticated, but not a member of admin.groups', ['forbidden']);
const AUTH_503 = error('The directory or an actor is unavailable; retry', ['directory_unavailable', 'service_unavailable'], RETRY_AFTER);
const BODY_413 = error('Request body over http.max_body', ['body_too_large']);
const BODY_415 = error('Content-Type is not application/json (UTF-8)', ['unsupported_media_type']);

const adminResponses = (own: Record<string, Json>, extra400: readonly string[] = []): Record<string, Json> => ({
  ...own,
  '400': error('Bad request', ['bad_credentials_format', ...extra400]),
  '401': ADMIN_401,
  '403': ADMIN_403,
  '429': THROTTLED_429,
  '503': AUTH_503,
});

const JSON_BODY_400 = ['invalid_json', 'body_not_object'];

// ---- the wiki endpoints (actors/http-front/routes/wiki.ts) --------------------------------------------

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

/** Why the user named in X-Service-User sees nothing (src/messages/ldap-resolver.ts, NoAccessReason). */
const NO_ACCESS = {
  enum: ['user_unknown', 'user_disabled', 'user_locked', 'user_expired', 'user_password_expired'],
  description: 'Only on a call with X-Service-User: the named user sees nothing (fail-closed) because the directory has no such user '
    + 'or would not let them log on; the lists are then empty',
};

const wikiResponses = (own: Record<string, Json>, extra400: readonly string[] = []): Record<string, Json> => ({
  ...own,
  '400': error('Bad request; service_user_required: a technical account (wiki.trusted_callers, the indexer account) called without X-Service-User', [
    'bad_credentials_format', 'bad_groups_header', 'bad_service_user_header', 'service_user_required', 'invalid_request', ...extra400,
  ]),
  '401': error('Basic credentials missing or wrong', ['credentials_required', 'invalid_credentials'], CHALLENGE),
  '403': error('X-Service-User from an account that is not in wiki.trusted_callers', ['untrusted_caller']),
  '404': error('The wiki is turned off on this host (elasticsearch.enabled is false)', ['wiki_disabled']),
  '429': THROTTLED_429,
  '503': error('The directory or an actor is unavailable; retry', ['directory_unavailable', 'service_unavailable'], RETRY_AFTER),
});

// ---- WebDAV (actors/http-front/routes/dav*.ts, src/webdav/errors.ts) ----------------------------------

const XML = 'application/xml; charset=utf-8';
const multistatus = (description: string): Json => ({ description, content: { [XML]: { schema: { type: 'string' } } } });
const noBody = (description: string, headers?: Json): Json => ({ description, ...(headers ? { headers } : {}) });
const DOWNLOAD = {
  'Content-Disposition': header('attachment; filename="…" (filename*=UTF-8\'\'… for other names) for HTML, XHTML, SVG, XML, XSLT, JavaScript and MHTML files'),
};
const VALIDATORS = {
  ETag: header('Strong entity tag of the file'),
  'Last-Modified': header('Modification time of the file'),
};

/** What every WebDAV method may answer: request errors, the user's SMB rights, the backend's state. */
const DAV_ERRORS: Record<string, Json> = {
  '400': error('Malformed path or request', ['invalid_path', 'invalid_request', 'invalid_name']),
  '401': error('Basic credentials missing, or refused by the file server', ['unauthorized', 'logon_failure'], CHALLENGE),
  '403': error('The file server or the wiki layout forbids it (LOCK and PROPPATCH ask it for the write right they need), the Destination is on another share, a replaced file\'s DACL cannot be carried over, or a bound of webdav.locks / webdav.dead_properties would be passed', ['access_denied', 'other_share', 'share_root', 'same_resource', 'into_itself', 'propfind_finite_depth', 'not_lock_owner', 'wiki_subfolder', 'wiki_non_markdown', 'acl_not_preserved', 'too_many_locks', 'lock_owner_too_large', 'too_many_properties', 'properties_too_large']),
  '404': error('No such share or resource', ['unknown_share', 'not_found']),
  '405': error('Not possible on this kind of resource', ['is_a_folder', 'is_a_collection', 'exists']),
  '409': error('Conflict with the state of the share', ['no_parent', 'exists', 'not_empty', 'not_a_folder', 'delete_pending', 'no_such_lock']),
  '412': error('A precondition (If-Match, If-None-Match, If, Overwrite) does not hold', ['precondition_failed', 'destination_exists']),
  '423': error('Locked, or in use by another program', ['locked', 'in_use']),
  '429': THROTTLED_429,
  '502': error('The file server failed', ['backend_error', 'share_unavailable']),
  '503': error('The SMB server, the WebDAV state or the login throttle is unavailable; retry', ['backend_unavailable', 'dav_state_unavailable', 'service_unavailable']),
  '507': error('The file server has no space left, or the dead-property store is full (webdav.dead_properties.max_total_size)', ['disk_full', 'property_store_full']),
};

const DAV_PARAMETERS = [
  { name: 'share', in: 'path', required: true, description: 'A share of smb.shares', schema: { type: 'string' } },
  {
    name: 'path', in: 'path', required: true,
    description: 'The file or folder path within the share: percent-encoded segments joined by "/", empty for the share root. OpenAPI path parameters cannot span segments; `x-multi-segment` marks this one.',
    schema: { type: 'string' },
    'x-multi-segment': true,
  },
];

const headerParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'header', required: false, description, schema });
const DEPTH = (values: string[]) => headerParam('Depth', 'Depth of the operation', { type: 'string', enum: values });
const IF = headerParam('If', 'RFC 4918 If header: lock tokens and entity tags');
const DESTINATION = { ...headerParam('Destination', 'Target URI on the same share'), required: true };
const OVERWRITE = headerParam('Overwrite', 'F refuses to replace an existing destination (412)', { type: 'string', enum: ['T', 'F'] });
const XML_BODY = { required: false, content: { 'application/xml': { schema: { type: 'string' } }, 'text/xml': { schema: { type: 'string' } } } };

function davOperation(operationId: string, summary: string, own: Record<string, Json>, extra: Json = {}): Json {
  return operation({ operationId, summary, tags: ['WebDAV'], security: [{ basicAuth: [] }], ...extra, responses: { ...DAV_ERRORS, ...own } });
}

const DAV_BODY_413 = error('XML request body over http.max_body', ['body_too_large']);

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'edu-fileproxy',
    version: '1.2.0',
    description: 'File proxy for school networks: WebDAV on SMB shares, a Markdown wiki with permission-filtered search, webhook intake. '
      + 'Every error answer has the shape {"status":"error","error":"<code>","message":"<text>"}; every answer carries X-Request-Id '
      + '(the caller\'s, when it is a plain token of at most 128 characters, else a new UUID).',
  },
  tags: [
    { name: 'Webhooks', description: 'Webhook intake and the events cached for users' },
    { name: 'Admin', description: 'Settings for global admins (members of admin.groups), with basic credentials' },
    { name: 'Wiki', description: 'Search and listings of the wiki pages the caller may see' },
    { name: 'WebDAV', description: 'The SMB shares as the user of the basic credentials' },
    { name: 'Operations', description: 'Health, readiness, metrics and this document' },
  ],
  paths: {
    '/edu-api/webhook': {
      post: operation({
        operationId: 'postWebhookEvent',
        summary: 'Accept an event of a registered webhook client',
        description: 'Checks in this order: the three x-webhook-* headers (400), key and User-Agent (401), timestamp (401), event id not seen before (409), then the body (413, 415, 400); a service-eventhandler event over webhooks.user_events.max_event_size gets 413 event_too_large after those.',
        tags: ['Webhooks'],
        security: [{ webhookKey: [] }],
        parameters: [
          { name: 'x-webhook-timestamp', in: 'header', required: true, description: 'Unix time in seconds, at most webhooks.max_timestamp_age old, not in the future', schema: { type: 'string', pattern: '^[0-9]+$' } },
          { name: 'x-webhook-event-id', in: 'header', required: true, description: 'Unique per event, also for retries', schema: { type: 'string' } },
          { name: 'User-Agent', in: 'header', required: true, description: 'The client\'s registered User-Agent, optionally followed by /<version>', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: jsonBody({ type: 'object' }) },
        responses: {
          '200': ok('Accepted', ref('WebhookAccepted')),
          '400': error('A header is missing, or the body is not a JSON object', ['missing_header', ...JSON_BODY_400]),
          '401': error('Unknown key, User-Agent mismatch, or a timestamp out of range', ['invalid_key', 'user_agent_mismatch', 'invalid_timestamp', 'timestamp_in_future', 'timestamp_expired']),
          '409': error('The event id was already processed', ['duplicate_event']),
          '413': error('Request body over http.max_body, or a service-eventhandler event over webhooks.user_events.max_event_size', ['body_too_large', 'event_too_large']),
          '415': BODY_415,
          '503': error('An actor the intake needs is restarting, or this thread\'s copy of the webhook clients is not loaded or not confirmed as current by the webhook-store (webhooks.replica_lease); retry', ['service_unavailable', 'registry_unavailable'], RETRY_AFTER),
        },
      }),
    },
    '/edu-api/users/{username}/events': {
      get: operation({
        operationId: 'listUserEvents',
        summary: 'The unexpired service-eventhandler events of a user, newest first',
        description: 'Global admins, admin.user and the indexer account read every user\'s events; any other user only their own (the path naming their account as user, DOMAIN\\user or user@realm, case-insensitively), else 403.',
        tags: ['Webhooks'],
        security: [{ basicAuth: [] }],
        parameters: [{ name: 'username', in: 'path', required: true, description: 'Percent-encoded user name', schema: { type: 'string' } }],
        responses: {
          ...adminResponses({ '200': ok('The user\'s cached events', ref('UserEvents'), { 'Cache-Control': header('no-store') }) }, ['invalid_username']),
          '401': AUTH_401,
          '403': error('Authenticated, but neither an admin or allowed service account nor the user named in the path', ['forbidden']),
        },
      }),
    },
    '/edu-api/admin/webhook-clients': {
      post: operation({
        operationId: 'createWebhookClient',
        summary: 'Create a webhook client; its key is generated (reveal it with GET .../{id}/key)',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        requestBody: { required: true, content: jsonBody(ref('WebhookClientCreate')) },
        responses: adminResponses({
          '201': ok('Created; the key is masked', ref('WebhookClient'), { Location: header('URI of the new client') }),
          '413': BODY_413,
          '415': BODY_415,
        }, [...JSON_BODY_400, 'read_only_field', 'unknown_field', 'missing_field', 'invalid_field', 'unsupported_user_agent']),
      }),
      get: operation({
        operationId: 'listWebhookClients',
        summary: 'Every webhook client, keys masked',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        parameters: [{ name: 'user_agent', in: 'query', required: false, description: 'Only clients with this User-Agent', schema: { type: 'string' } }],
        responses: adminResponses({ '200': ok('The clients', ref('WebhookClientList')) }),
      }),
      delete: operation({
        operationId: 'deleteWebhookClients',
        summary: 'Delete several clients; their keys are rejected at once',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        requestBody: { required: true, content: jsonBody(ref('WebhookClientDelete')) },
        responses: adminResponses({
          '200': ok('Which ids were deleted and which were unknown', ref('DeleteResult')),
          '413': BODY_413,
          '415': BODY_415,
        }, [...JSON_BODY_400, 'unknown_field', 'missing_field', 'invalid_field']),
      }),
    },
    '/edu-api/admin/webhook-clients/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      delete: operation({
        operationId: 'deleteWebhookClient',
        summary: 'Delete one client',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        responses: adminResponses({
          '200': ok('Deleted', ref('DeleteResult')),
          '404': error('No such client', ['client_not_found']),
        }),
      }),
      put: immutableClientOperation('replaceWebhookClient'),
      patch: immutableClientOperation('updateWebhookClient'),
    },
    '/edu-api/admin/webhook-clients/{id}/key': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: operation({
        operationId: 'revealWebhookClientKey',
        summary: 'Reveal a client\'s key (written to the audit log, without the key)',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        responses: adminResponses({
          '200': ok('The key in clear', ref('WebhookClientKey'), { 'Cache-Control': header('no-store') }),
          '404': error('No such client', ['client_not_found']),
        }),
      }),
      post: immutableClientOperation('regenerateWebhookClientKey'),
      put: immutableClientOperation('setWebhookClientKey'),
    },
    '/edu-api/admin/webhook-user-agents': {
      get: operation({
        operationId: 'listSupportedUserAgents',
        summary: 'The services a webhook client may be created for (webhooks.supported_user_agents)',
        tags: ['Admin'],
        security: [{ basicAuth: [] }],
        responses: adminResponses({ '200': ok('The supported User-Agents', ref('UserAgents')) }),
      }),
    },
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
        security: [{ basicAuth: [] }],
        parameters: [WIKI_GROUPS, WIKI_SERVICE_USER],
        requestBody: { required: true, content: jsonBody(ref('SearchRequest')) },
        responses: wikiResponses({
          '200': ok('Hits; empty with degraded: true while Elasticsearch is unavailable', ref('SearchResult')),
          '413': error('Request body over 16 KiB', ['body_too_large']),
          '415': BODY_415,
        }, JSON_BODY_400),
      }),
    },
    '/wiki/roots': {
      get: operation({
        operationId: 'listWikiRoots',
        summary: 'Every share and folder with a wiki page the caller may see (also the health-check target of the browser-facing API)',
        tags: ['Wiki'],
        security: [{ basicAuth: [] }],
        parameters: [WIKI_GROUPS, WIKI_SERVICE_USER],
        responses: wikiResponses({ '200': ok('The wiki roots', ref('RootListing')) }),
      }),
    },
    '/wiki/pages': {
      get: operation({
        operationId: 'listWikiPages',
        summary: 'The pages of one folder\'s wiki the caller may see, start page first',
        tags: ['Wiki'],
        security: [{ basicAuth: [] }],
        parameters: [
          WIKI_GROUPS,
          WIKI_SERVICE_USER,
          { name: 'share', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
          { name: 'folder', in: 'query', required: false, description: 'Share-relative folder; empty or absent for the share root', schema: { type: 'string' } },
        ],
        responses: wikiResponses({ '200': ok('The pages', ref('PageListing')) }),
      }),
    },
    '/dav/{share}/{path}': {
      summary: 'WebDAV (RFC 4918 class 1 and 2) on the SMB shares',
      description: 'Every request runs as the user of its basic credentials on the file server, whose ACLs decide. '
        + `Every answer (errors included) carries Content-Security-Policy: ${DAV_RESPONSE_HEADERS['content-security-policy']} and `
        + 'X-Content-Type-Options: nosniff, so that no uploaded file runs on this origin; files a browser would execute '
        + '(HTML, XHTML, SVG, XML, XSLT, JavaScript, MHTML) are sent as attachments. '
        + 'Inside `.wiki/` folders only Markdown files may be created. With several http-front threads (workers.http_front > 1) '
        + 'only OPTIONS, GET, HEAD, PUT and DELETE are served.',
      parameters: DAV_PARAMETERS,
      options: operation({
        operationId: 'davOptions',
        summary: 'WebDAV capabilities',
        tags: ['WebDAV'],
        responses: {
          '200': noBody('Capabilities', { DAV: header('1, 2'), Allow: header('The WebDAV methods'), 'MS-Author-Via': header('DAV') }),
        },
      }),
      get: davOperation('davGet', 'Read a file (one byte range at most)', {
        '200': { description: 'The file', headers: { ...VALIDATORS, ...DOWNLOAD }, content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
        '206': { description: 'The requested range', headers: { ...VALIDATORS, ...DOWNLOAD, 'Content-Range': header('bytes first-last/size') }, content: { '*/*': { schema: { type: 'string' } } } },
        '304': noBody('Not modified (If-None-Match, If-Modified-Since)', VALIDATORS),
        '416': error('The range is outside the file', ['range_not_satisfiable'], { 'Content-Range': header('bytes */size') }),
      }, {
        parameters: [
          headerParam('Range', 'One byte range: bytes=first-last'),
          headerParam('If-Range', 'Entity tag or date the range depends on'),
          headerParam('If-None-Match', 'Entity tags; 304 when one matches'),
          headerParam('If-Match', 'Entity tags; 412 when none matches'),
        ],
      }),
      head: davOperation('davHead', 'Headers of a file, as GET would send them', {
        '200': noBody('The file exists', VALIDATORS),
        '206': noBody('The requested range', VALIDATORS),
        '304': noBody('Not modified', VALIDATORS),
        '416': noBody('The range is outside the file'),
      }),
      put: davOperation('davPut', 'Write a file atomically (streamed; If-Match for conflict detection)', {
        '201': noBody('Created', VALIDATORS),
        '204': noBody('Replaced', VALIDATORS),
      }, {
        parameters: [headerParam('If-Match', 'Entity tag the file must still have'), headerParam('If-None-Match', '* creates only'), IF],
        requestBody: { required: false, content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
      }),
      delete: davOperation('davDelete', 'Delete a file or a folder with its contents', {
        '204': noBody('Deleted'),
        '207': multistatus('Members that could not be deleted'),
      }, { parameters: [DEPTH(['infinity']), IF] }),
      'x-additional-operations': {
        PROPFIND: davOperation('davPropfind', 'Properties of a resource (Depth 0) or a folder and its members (Depth 1)', {
          '207': multistatus('The properties'),
          '413': DAV_BODY_413,
        }, { parameters: [DEPTH(['0', '1', 'infinity'])], requestBody: XML_BODY }),
        PROPPATCH: davOperation('davProppatch', 'Set or remove dead properties', {
          '207': multistatus('The outcome per property'),
          '413': DAV_BODY_413,
        }, { parameters: [IF], requestBody: XML_BODY }),
        MKCOL: davOperation('davMkcol', 'Create a folder', {
          '201': noBody('Created'),
          '413': DAV_BODY_413,
          '415': error('MKCOL takes no request body', ['unsupported_body']),
        }, { parameters: [IF] }),
        COPY: davOperation('davCopy', 'Copy within the share (dead properties follow, locks do not)', {
          '201': noBody('Copied to a new name'),
          '204': noBody('Copied over an existing resource'),
          '207': multistatus('Members that could not be copied'),
        }, { parameters: [DESTINATION, OVERWRITE, DEPTH(['0', 'infinity']), IF] }),
        MOVE: davOperation('davMove', 'Move or rename within the share', {
          '201': noBody('Moved to a new name'),
          '204': noBody('Moved over an existing resource'),
          '207': multistatus('Members that could not be replaced'),
        }, { parameters: [DESTINATION, OVERWRITE, DEPTH(['infinity']), IF] }),
        LOCK: davOperation('davLock', 'Take a write lock (a new name becomes an empty file), or refresh one (no body, If header)', {
          '200': { ...multistatus('The lock (lockdiscovery)'), headers: { 'Lock-Token': header('<token> of a new lock') } },
          '201': { ...multistatus('The lock on a newly created empty file'), headers: { 'Lock-Token': header('<token>') } },
          '413': DAV_BODY_413,
        }, { parameters: [DEPTH(['0', 'infinity']), headerParam('Timeout', 'Second-<n> or Infinite'), IF], requestBody: XML_BODY }),
        UNLOCK: davOperation('davUnlock', 'Release a lock', {
          '204': noBody('Released'),
        }, { parameters: [{ ...headerParam('Lock-Token', '<token> of the lock'), required: true }] }),
      },
    },
    '/healthz': {
      get: operation({
        operationId: 'getHealth',
        summary: 'Liveness: the state of every actor and pool',
        tags: ['Operations'],
        responses: {
          '200': ok('Every actor and pool is running', ref('HealthReport')),
          '503': ok('An actor or pool is not running', ref('HealthReport')),
        },
      }),
    },
    '/readyz': {
      get: operation({
        operationId: 'getReadiness',
        summary: 'Readiness: Elasticsearch (when enabled), the directory (LDAPS bind as the indexer account) and each SMB backend',
        description: 'Results are reused for 5 seconds, so that frequent probes do not load the directory or the file servers.',
        tags: ['Operations'],
        responses: {
          '200': ok('Every needed dependency answers', ref('ReadinessReport')),
          '503': ok('A needed dependency is down', ref('ReadinessReport')),
        },
      }),
    },
    '/metrics': {
      get: operation({
        operationId: 'getMetrics',
        summary: 'Prometheus metrics of every thread of the service, merged',
        tags: ['Operations'],
        responses: {
          '200': { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      }),
    },
    '/openapi.json': {
      get: operation({
        operationId: 'getOpenApi',
        summary: 'This document',
        tags: ['Operations'],
        responses: { '200': ok('The OpenAPI 3.1 document', {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
        }) },
      }),
    },
    '/admin': {
      get: operation({
        operationId: 'redirectAdminPage',
        summary: 'Redirect to the admin page',
        tags: ['Admin'],
        responses: { '301': noBody('To /admin/', { Location: header('/admin/') }) },
      }),
    },
    '/admin/': {
      get: operation({
        operationId: 'getAdminPage',
        summary: 'The admin settings page (sign-in with a global admin\'s directory credentials happens in the page)',
        tags: ['Admin'],
        responses: {
          '200': { description: 'The page', headers: { ETag: header('Revalidate with If-None-Match') }, content: { 'text/html': { schema: { type: 'string' } } } },
          '304': noBody('Not modified'),
          '500': error('The page\'s files are missing from the installation', ['admin_ui_missing', 'internal_error']),
        },
      }),
    },
    '/admin/{file}': {
      get: operation({
        operationId: 'getAdminAsset',
        summary: 'A script, style sheet or image of the admin page',
        tags: ['Admin'],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The file',
            headers: { ETag: header('Revalidate with If-None-Match') },
            content: Object.fromEntries(['text/html', 'text/javascript', 'text/css', 'image/svg+xml', 'image/png'].map((type) => [type, { schema: { type: 'string' } }])),
          },
          '304': noBody('Not modified'),
          '404': error('No such file on the admin page', ['not_found']),
          '500': error('The page\'s files are missing from the installation', ['admin_ui_missing', 'internal_error']),
        },
      }),
    },
  },
  components: {
    securitySchemes: {
      basicAuth: { type: 'http', scheme: 'basic', description: 'Directory credentials: user, DOMAIN\\user or user@realm' },
      webhookKey: { type: 'apiKey', in: 'header', name: 'x-webhook-key', description: 'API key of a webhook client' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['status', 'error', 'message'],
        additionalProperties: false,
        properties: {
          status: { const: 'error' },
          error: { type: 'string', description: 'Machine-readable code', pattern: '^[a-z][a-z0-9_]*$' },
          message: { type: 'string', description: 'What is wrong, for a human' },
        },
      },
      WebhookAccepted: {
        type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } },
      },
      WebhookClient: {
        type: 'object',
        required: ['id', 'user_agent', 'api_key', 'created_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          user_agent: { type: 'string' },
          api_key: { const: '********', description: 'Masked; reveal with GET /edu-api/admin/webhook-clients/{id}/key' },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
      WebhookClientList: {
        type: 'object', required: ['clients'], additionalProperties: false,
        properties: { clients: { type: 'array', items: ref('WebhookClient') } },
      },
      WebhookClientKey: {
        type: 'object', required: ['id', 'api_key'], additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          api_key: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: '32 random bytes, base64url' },
        },
      },
      WebhookClientCreate: {
        type: 'object', required: ['user_agent'], additionalProperties: false,
        properties: { user_agent: { type: 'string', description: 'One of webhooks.supported_user_agents' } },
      },
      WebhookClientDelete: {
        type: 'object', required: ['ids'], additionalProperties: false,
        properties: { ids: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', minLength: 1 } } },
      },
      DeleteResult: {
        type: 'object', required: ['deleted', 'not_found'], additionalProperties: false,
        properties: {
          deleted: { type: 'array', items: { type: 'string' } },
          not_found: { type: 'array', items: { type: 'string' } },
        },
      },
      UserAgents: {
        type: 'object', required: ['user_agents'], additionalProperties: false,
        properties: { user_agents: { type: 'array', items: { type: 'string' } } },
      },
      UserEvents: {
        type: 'object', required: ['username', 'events'], additionalProperties: false,
        properties: {
          username: { type: 'string' },
          events: {
            type: 'array',
            items: {
              type: 'object',
              required: ['event_id', 'client_id', 'received_at', 'payload'],
              additionalProperties: false,
              properties: {
                event_id: { type: 'string' },
                client_id: { type: 'string' },
                received_at: { type: 'string', format: 'date-time' },
                payload: { type: 'object', description: 'The event body as it was sent' },
              },
            },
          },
        },
      },
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
          total: { type: 'integer', minimum: 0 },
          hits: { type: 'array', items: ref('SearchHit') },
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
      HealthReport: {
        type: 'object', required: ['status', 'actors'], additionalProperties: false,
        properties: {
          status: { enum: ['ok', 'degraded'] },
          actors: { type: 'object', additionalProperties: ref('ActorHealth') },
        },
      },
      ActorHealth: {
        type: 'object', required: ['state', 'kind', 'restarts'], additionalProperties: false,
        properties: {
          state: { enum: ['starting', 'running', 'restarting', 'stopping', 'stopped', 'failed'] },
          kind: { enum: ['actor', 'pool'] },
          restarts: { type: 'integer', minimum: 0 },
          uptimeSeconds: { type: 'integer', minimum: 0 },
          lastError: { type: 'string' },
          details: { type: 'object', description: 'What the actor reports about itself (queue sizes, counts)' },
        },
      },
      ReadinessReport: {
        type: 'object', required: ['status', 'checks'], additionalProperties: false,
        properties: {
          status: { enum: ['ready', 'not_ready'] },
          checks: {
            type: 'object',
            description: 'By dependency: elasticsearch, ldap, smb://<host>:<port> per SMB backend',
            additionalProperties: ref('DependencyCheck'),
          },
        },
      },
      DependencyCheck: {
        type: 'object', required: ['status', 'detail', 'checked_at', 'duration_ms'], additionalProperties: false,
        properties: {
          status: { enum: ['up', 'down', 'disabled'] },
          detail: { type: 'string' },
          checked_at: { type: 'string', format: 'date-time' },
          duration_ms: { type: 'number', minimum: 0 },
        },
      },
    },
  },
};

/** Webhook clients and keys are immutable: every change is refused after the admin check. */
function immutableClientOperation(operationId: string): Json {
  return operation({
    operationId,
    summary: 'Refused: clients and keys cannot be changed or regenerated (create a new client, then delete the old one)',
    tags: ['Admin'],
    security: [{ basicAuth: [] }],
    responses: adminResponses({ '413': BODY_413 }, ['client_immutable']),
  });
}

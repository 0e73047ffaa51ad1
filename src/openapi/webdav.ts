// OpenAPI path of WebDAV (src/webdav/methods/, src/webdav/errors.ts). Methods beyond
// OpenAPI's fixed set (PROPFIND, MKCOL, COPY, ...) are described under `x-additional-operations`,
// shaped like OpenAPI 3.2's `additionalOperations`.

import { DAV_RESPONSE_HEADERS } from '../webdav/active-content.js';
import { SERVICE_USER_REFUSALS } from './wiki.js';
import { error, header, NEGOTIATE_401_CODES, noBody, operation, THROTTLED_429, USER_CHALLENGE, type Json } from './shared.js';

const XML = 'application/xml; charset=utf-8';
const multistatus = (description: string): Json => ({ description, content: { [XML]: { schema: { type: 'string' } } } });
const DOWNLOAD = {
  'Content-Disposition': header('attachment; filename="…" (filename*=UTF-8\'\'… for other names) for HTML, XHTML, SVG, XML, XSLT, JavaScript and MHTML files'),
};
const VALIDATORS = {
  ETag: header('Strong entity tag of the file'),
  'Last-Modified': header('Modification time of the file'),
};

/** What every WebDAV method may answer: request errors, the user's SMB rights, the backend's state. */
const DAV_ERRORS: Record<string, Json> = {
  '400': error('Malformed path, request or X-Service-User, or a path or Destination that names a file by its 8.3 short name', ['invalid_path', 'invalid_request', 'invalid_name', 'short_name', 'bad_service_user_header']),
  '401': error('Basic credentials missing, or refused by the file server (or, with X-Service-User, by the directory), or a Negotiate token refused', ['unauthorized', 'logon_failure', 'invalid_credentials', ...NEGOTIATE_401_CODES], USER_CHALLENGE),
  '403': error('The file server or the wiki layout forbids it (LOCK and PROPPATCH ask it for the write right they need; a Depth: infinity LOCK on a folder for every member too), the Destination is on another share or a folder that holds the source (onto_ancestor), a name that could be an 8.3 short name is in a folder the user may not list (short_name_unknown), a body over 1 MiB cannot be staged beside its target (staging_denied), or a bound of webdav.locks / webdav.dead_properties would be passed. '
    + 'With X-Service-User: the caller is not a trusted caller, the named account is one no trusted caller may act for or cannot log on (service_user_<rule>, as on the wiki), the directory has no such user (service_user_unknown), delegation is not configured, or the KDC refuses it (delegation_<reason>; also with Negotiate)', [
    'access_denied', 'staging_denied', 'other_share', 'share_root', 'same_resource', 'onto_ancestor', 'short_name_unknown', 'into_itself', 'propfind_finite_depth', 'not_lock_owner', 'wiki_subfolder', 'wiki_non_markdown', 'too_many_locks', 'lock_owner_too_large', 'lock_too_wide', 'too_many_properties', 'properties_too_large', 'user_properties_too_large',
    'untrusted_caller', ...SERVICE_USER_REFUSALS, 'service_user_unknown',
    'delegation_not_configured', 'delegation_tgt_not_forwardable', 'delegation_user_not_delegable', 'delegation_service_not_allowed',
  ]),
  '404': error('No such share or resource', ['unknown_share', 'not_found']),
  '405': error('Not possible on this kind of resource', ['is_a_folder', 'is_a_collection', 'exists']),
  '409': error('Conflict with the state of the share', ['no_parent', 'exists', 'not_empty', 'not_a_folder', 'delete_pending', 'no_such_lock']),
  '412': error('A precondition (If-Match, If-None-Match, If, Overwrite) does not hold', ['precondition_failed', 'destination_exists']),
  '423': error('Locked, or in use by another program', ['locked', 'in_use']),
  '429': THROTTLED_429,
  '502': error('The file server failed, or (X-Service-User, Negotiate) the user\'s ticket could not be had by delegation', ['backend_error', 'share_unavailable', 'delegation_failed']),
  '503': error('The SMB server, the WebDAV state (with cluster.shared_state: elasticsearch, the cluster that keeps it), the login throttle, the directory or (X-Service-User, Negotiate) the KDC is unavailable, or too many Negotiate logons within the clock skew window; retry', ['backend_unavailable', 'dav_state_unavailable', 'shared_state_unavailable', 'service_unavailable', 'directory_unavailable', 'kdc_unavailable', 'negotiate_busy']),
  '507': error('The file server has no space left, or the dead-property store is full (webdav.dead_properties.max_total_size)', ['disk_full', 'property_store_full']),
};

const DAV_PARAMETERS = [
  { name: 'share', in: 'path', required: true, description: 'A share of smb.shares', schema: { type: 'string' } },
  {
    name: 'X-Service-User', in: 'header', required: false,
    description: 'Only from an account of wiki.trusted_callers, with kerberos.delegation configured: the user the request is for (as on the wiki endpoints); '
      + 'the basic credentials are then the trusted caller\'s, and the request reaches SMB as that user by constrained delegation (S4U2Self, S4U2Proxy).',
    schema: { type: 'string' },
  },
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
  return operation({ operationId, summary, tags: ['WebDAV'], security: [{ basicAuth: [] }, { negotiateAuth: [] }], ...extra, responses: { ...DAV_ERRORS, ...own } });
}

const DAV_BODY_413 = error('XML request body over http.max_body', ['body_too_large']);

export const webdavPaths = {
  '/dav/{share}/{path}': {
    summary: 'WebDAV (RFC 4918 class 1 and 2) on the SMB shares',
    description: 'Every request runs as the user of its basic credentials (or the user a trusted caller names in X-Service-User) on the file server, whose ACLs decide. '
      + `Every answer (errors included) carries Content-Security-Policy: ${DAV_RESPONSE_HEADERS['content-security-policy']} and `
      + 'X-Content-Type-Options: nosniff, so that no uploaded file runs on this origin; files a browser would execute '
      + '(HTML, XHTML, SVG, XML, XSLT, JavaScript, MHTML) are sent as attachments. '
      + 'Inside `.wiki/` folders only Markdown files may be created. Over the uWebSockets.js transport (http.transport: uws) '
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
        '413': error('XML request body over 16 times webdav.locks.max_owner_size (at least 64 KiB, at most http.max_body), refused unread', ['body_too_large']),
      }, { parameters: [DEPTH(['0', 'infinity']), headerParam('Timeout', 'Second-<n> or Infinite'), IF], requestBody: XML_BODY }),
      UNLOCK: davOperation('davUnlock', 'Release a lock', {
        '204': noBody('Released'),
      }, { parameters: [{ ...headerParam('Lock-Token', '<token> of the lock'), required: true }] }),
    },
  },
};

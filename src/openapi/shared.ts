// Building blocks of the OpenAPI document (src/openapi/document.ts) that every surface uses: the
// error shape, the answers every endpoint may give (500, 503 while shutting down), the Basic-login
// answers (401 with its challenge, 429 from the login throttle) and the JSON request body's errors.

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const jsonBody = (schema: Json): Json => ({ 'application/json': { schema } });

/** An answer in the service's error shape; `codes` lists the `error` values this status carries here. */
export function error(description: string, codes: readonly string[], headers?: Json): Json {
  return {
    description: `${description} (error: ${codes.join(', ')})`,
    ...(headers ? { headers } : {}),
    content: jsonBody(ref('Error')),
  };
}

export const ok = (description: string, schema: Json, headers?: Json): Json => ({
  description, ...(headers ? { headers } : {}), content: jsonBody(schema),
});

export const header = (description: string, schema: Json = { type: 'string' }): Json => ({ description, schema });
const CHALLENGE = { 'WWW-Authenticate': header('Basic realm="edu-fileproxy"') };
/** The challenge of /dav/ and the wiki: Negotiate offered first where kerberos.delegation.http_spn is set. */
export const USER_CHALLENGE = { 'WWW-Authenticate': header('Basic realm="edu-fileproxy"; with kerberos.delegation.http_spn set: Negotiate, Basic realm="edu-fileproxy"') };
/** Why a Negotiate token was refused (src/auth/negotiate.ts, src/viewer/viewer.ts): always a 401. */
export const NEGOTIATE_401_CODES = [
  'negotiate_malformed', 'negotiate_ntlm', 'negotiate_replay', 'negotiate_ticket_invalid', 'negotiate_integrity', 'negotiate_clock_skew',
  'negotiate_keytab', 'negotiate_unsupported_etype', 'negotiate_foreign_principal', 'negotiate_pac_invalid', 'negotiate_not_configured', 'negotiate_user_unknown',
  'negotiate_user_disabled', 'negotiate_user_locked', 'negotiate_user_expired', 'negotiate_user_password_expired',
] as const;
const ADMIN_CHALLENGE = { 'WWW-Authenticate': header('Basic realm="edu-fileproxy admin" (a realm of its own: a browser keeps these credentials apart from those of /dav/ and the wiki)') };
export const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^[0-9]+$' }) };

/** The login throttle (src/auth/login-throttle.ts), on every endpoint with Basic credentials. */
export const THROTTLED_429 = error('Too many failed logins for this user or from this address; the directory was not asked. Retry after Retry-After seconds', ['too_many_failed_logins'], RETRY_AFTER);

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

export function operation(op: Json & { responses: Record<string, Json> }): Json {
  return { ...op, responses: withCommon(op.responses) };
}

/** An answer without a body. */
export const noBody = (description: string, headers?: Json): Json => ({ description, ...(headers ? { headers } : {}) });

// ---- the admin and user-event logins (actors/webhook-store/logins.ts, actors/http-front/routes/api-calls.ts) --

export const AUTH_401 = error('Credentials missing or wrong', ['invalid_credentials'], CHALLENGE);
const ADMIN_401 = error('Credentials missing or wrong', ['invalid_credentials'], ADMIN_CHALLENGE);
const ADMIN_403 = error('Authenticated, but not a member of admin.groups', ['forbidden']);
const AUTH_503 = error('The directory or an actor is unavailable; retry', ['directory_unavailable', 'service_unavailable'], RETRY_AFTER);
export const BODY_413 = error('Request body over http.max_body', ['body_too_large']);
export const BODY_415 = error('Content-Type is not application/json (UTF-8)', ['unsupported_media_type']);

export const adminResponses = (own: Record<string, Json>, extra400: readonly string[] = []): Record<string, Json> => ({
  ...own,
  '400': error('Bad request', ['bad_credentials_format', ...extra400]),
  '401': ADMIN_401,
  '403': ADMIN_403,
  '429': THROTTLED_429,
  '503': AUTH_503,
});

export const JSON_BODY_400 = ['invalid_json', 'body_not_object'];

/** The security schemes the operations name. */
export const securitySchemes = {
  basicAuth: { type: 'http', scheme: 'basic', description: 'Directory credentials: user, DOMAIN\\user or user@realm' },
  negotiateAuth: {
    type: 'http', scheme: 'negotiate',
    description: 'A Kerberos ticket for kerberos.delegation.http_spn (RFC 4559, SPNEGO or bare Kerberos; not NTLM), on /dav/ and the wiki where it is configured',
  },
  webhookKey: { type: 'apiKey', in: 'header', name: 'x-webhook-key', description: 'API key of a webhook client' },
};

/** The schema of every error answer. */
export const errorSchema = {
  type: 'object',
  required: ['status', 'error', 'message'],
  additionalProperties: false,
  properties: {
    status: { const: 'error' },
    error: { type: 'string', description: 'Machine-readable code', pattern: '^[a-z][a-z0-9_]*$' },
    message: { type: 'string', description: 'What is wrong, for a human' },
  },
};

// Request bodies that must be a JSON object: webhook events, the admin APIs, wiki search.
import type { HttpExchange } from './exchange.js';
import { HttpError } from './http-error.js';

export type JsonObjectBodyResult =
  | { readonly ok: true; readonly object: Record<string, unknown>; /** The body as sent (decoded), which parsed to `object`. */ readonly text: string }
  | { readonly ok: false; readonly error: HttpError };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks a request body that must be a JSON object (webhook events, admin API requests):
 * `Content-Type: application/json` (parameters allowed, a charset must be UTF-8) else 415;
 * a JSON object else 400 `invalid_json` / `body_not_object`.
 */
export function checkJsonObjectBody(contentType: string | undefined, body: ArrayBuffer | Uint8Array | string): JsonObjectBodyResult {
  const mediaTypeProblem = checkContentType(contentType);
  if (mediaTypeProblem !== undefined) return fail(415, 'unsupported_media_type', mediaTypeProblem);
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body);
  } catch {
    return fail(400, 'invalid_json', 'request body is not valid UTF-8');
  }
  if (text.trim() === '') return fail(400, 'invalid_json', 'request body is empty; a JSON object is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail(400, 'invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return fail(400, 'body_not_object', `request body must be a JSON object, got ${kind}`);
  }
  return { ok: true, object: value as Record<string, unknown>, text };
}

/** The request body as a JSON object; throws the 415 or 400 of checkJsonObjectBody otherwise. */
export async function readJsonObject(ex: HttpExchange): Promise<Record<string, unknown>> {
  const body = checkJsonObjectBody(ex.headers['content-type'], await ex.readBody());
  if (!body.ok) throw body.error;
  return body.object;
}

function fail(status: number, code: string, message: string): JsonObjectBodyResult {
  return { ok: false, error: new HttpError(status, code, message) };
}

/** Returns what is wrong with the Content-Type, or undefined if it is JSON in UTF-8. */
function checkContentType(contentType: string | undefined): string | undefined {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  if (mediaType.trim().toLowerCase() !== 'application/json') {
    return contentType === undefined || contentType.trim() === ''
      ? 'Content-Type header is missing; application/json is required'
      : 'Content-Type must be application/json';
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2).map((part) => part.trim().toLowerCase());
    if (name === 'charset' && !['utf-8', 'utf8', '"utf-8"'].includes(value)) {
      return 'Content-Type charset must be utf-8';
    }
  }
  return undefined;
}

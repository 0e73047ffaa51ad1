// Building blocks of the config schema: each field type carries its own short, specific message.
import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { parseDuration, parseSize } from './units.js';

/** Schema-level error: a missing value reads `missing`, anything else the field's own message. */
function fieldError(message: string, missing = 'required'): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => (issue.input === undefined ? missing : message) };
}

function rejectMissing(value: unknown, ctx: z.RefinementCtx): value is undefined {
  if (value !== undefined) return false;
  ctx.addIssue({ code: 'custom', message: 'required' });
  return true;
}

/** A duration ("30s", "15m", "24h", "500ms" or a number of seconds), converted to milliseconds. */
export function duration() {
  return z.unknown().transform((value, ctx): number => {
    if (rejectMissing(value, ctx)) return z.NEVER;
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: 'not a valid duration (use e.g. 30s, 15m, 24h)' });
      return z.NEVER;
    }
    if (ms <= 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a duration longer than 0 (use e.g. 30s, 15m, 24h)' });
      return z.NEVER;
    }
    return ms;
  });
}

/** A size ("1MiB", "512KiB", "2MB" or a number of bytes), converted to bytes. */
export function size() {
  return z.unknown().transform((value, ctx): number => {
    if (rejectMissing(value, ctx)) return z.NEVER;
    const bytes = parseSize(value);
    if (bytes === undefined || bytes <= 0) {
      ctx.addIssue({ code: 'custom', message: 'not a valid size (use e.g. 512KiB, 1MiB or a number of bytes above 0)' });
      return z.NEVER;
    }
    return bytes;
  });
}

export function intBetween(min: number, max: number) {
  return z.int(fieldError(`must be an integer between ${min} and ${max}`)).min(min).max(max);
}

export function port() {
  return intBetween(1, 65535);
}

export function nonEmptyString() {
  return z.string().trim().min(1, 'must not be empty');
}

/** A host name or IP address without scheme, port or path, e.g. fs1.schule.local. */
export function host() {
  return z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:[\]-]+$/, fieldError('must be a host name or IP address without scheme or path, e.g. fs1.schule.local'));
}

/** An IPv4 or IPv6 address (no host name: it is compared with the TCP peer's address). */
export function ipAddress() {
  return z
    .string(fieldError('must be a string'))
    .trim()
    .refine((value) => isIP(value) !== 0, 'must be an IPv4 or IPv6 address, e.g. 10.0.0.5');
}

/** An absolute file system path: the service runs from an arbitrary working directory. */
export function absolutePath(missing = 'required') {
  return z
    .string(fieldError('must be a string', missing))
    .refine((value) => isAbsolute(value), 'must be an absolute path, e.g. /etc/edu-fileproxy/...');
}

/** A URL whose scheme is one of `schemes` (without the trailing colon). */
export function urlWithScheme(schemes: readonly string[], message: string) {
  return z.string(fieldError(message)).refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return url.hostname !== '' && schemes.includes(url.protocol.slice(0, -1));
  }, message);
}

/** An LDAP distinguished name such as DC=schule,DC=local. */
export function distinguishedName() {
  return z
    .string()
    .regex(/^\s*[A-Za-z][\w-]*\s*=[^,]+(,\s*[A-Za-z][\w-]*\s*=[^,]+)*$/, fieldError('must be a DN like DC=schule,DC=local'));
}

/** A directory account name: `user`, `DOMAIN\user` or `user@realm` (no control characters, "," or "="). */
export function accountName() {
  return z
    .string(fieldError('must be a string'))
    .trim()
    .regex(/^[^\u0000-\u001f\u007f,=]{1,256}$/, 'must be an account name (user, DOMAIN\\user or user@realm) of at most 256 characters');
}

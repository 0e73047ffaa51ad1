// How failures of a WebDAV request become HTTP answers: SMB errors by their
// code, protocol errors of the request as 400, an unreachable backend or
// dav-state (or the cluster that keeps its state for several proxies) as a
// fast 503 that says what is down (a file server by its share, never by its
// address: the log has that).
import { challengeHeader, DAV_CHALLENGE } from '../http/challenges.js';
import { HttpError } from '../http/http-error.js';
import { ActorUnavailableError } from '../runtime/rpc.js';
import { SmbError } from '../smb/index.js';
import { DavPathError } from './dav-path.js';
import { EtagSyntaxError } from './etag.js';
import { IfHeaderError } from './if-header.js';
import { DavRequestError } from './requests.js';
import { SHARED_STATE_UNAVAILABLE } from './shared-state-error.js';

/** The 401 header of WebDAV: the users' realm, with the charset of the credentials. */
export const DAV_CHALLENGE_HEADER = challengeHeader(DAV_CHALLENGE);

interface FailureContext {
  /** The SMB server of the share. */
  server: string;
  share: string;
  path: string;
}

/** The HttpError for `err`, or undefined when it is a bug (answered 500 and logged). */
export function davHttpError(err: unknown, at: FailureContext): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (err instanceof DavPathError) return new HttpError(400, 'invalid_path', err.message);
  if (err instanceof DavRequestError || err instanceof IfHeaderError || err instanceof EtagSyntaxError) {
    return new HttpError(400, 'invalid_request', err.message);
  }
  if (err instanceof ActorUnavailableError) {
    return new HttpError(503, 'dav_state_unavailable', 'the WebDAV lock and property store is restarting; try again');
  }
  if ((err as { code?: unknown } | null)?.code === SHARED_STATE_UNAVAILABLE) {
    return new HttpError(503, 'shared_state_unavailable', 'the WebDAV locks and dead properties the proxies share (cluster.shared_state) cannot be read or written now; try again shortly', { 'retry-after': '1' });
  }
  if (err instanceof SmbError) return smbHttpError(err, at);
  return undefined;
}

function smbHttpError(err: SmbError, at: FailureContext): HttpError {
  const where = `'${at.path || '/'}' on share ${at.share}`;
  switch (err.code) {
    case 'NOT_FOUND': return new HttpError(404, 'not_found', `${where} does not exist`);
    case 'ACCESS_DENIED': return new HttpError(403, 'access_denied', `the file server denies access to ${where}`);
    case 'STAGING_DENIED':
      return new HttpError(403, 'staging_denied', `a body over 1 MiB (or over the file server's largest write, where that is less) for ${where} waits in a file beside it until it is whole, and the file server does not let you create files in that folder; save it over SMB, or ask for the right to add files there`);
    // A wrong password is all it takes to get this answer: it names no server.
    case 'LOGON_FAILURE': return new HttpError(401, 'logon_failure', 'the file server refused the credentials', DAV_CHALLENGE_HEADER);
    case 'SHARING_VIOLATION': return new HttpError(423, 'in_use', `${where} is in use by another program`);
    case 'LOCK_CONFLICT': return new HttpError(423, 'in_use', `another program holds a byte-range lock on ${where}`);
    case 'DELETE_PENDING': return new HttpError(409, 'delete_pending', `${where} is being deleted`);
    case 'NAME_COLLISION': return new HttpError(409, 'exists', `${where} already exists`);
    case 'DIRECTORY_NOT_EMPTY': return new HttpError(409, 'not_empty', `${where} is a folder that is not empty`);
    case 'NOT_A_DIRECTORY': return new HttpError(409, 'not_a_folder', `a parent of ${where} is a file, not a folder`);
    case 'IS_A_DIRECTORY': return new HttpError(405, 'is_a_folder', `${where} is a folder`);
    case 'INVALID_PARAMETER': return new HttpError(400, 'invalid_name', `the file server does not accept the name ${where}`);
    case 'INVALID_ARGUMENT': return new HttpError(400, 'invalid_path', err.message);
    case 'DISK_FULL': return new HttpError(507, 'disk_full', `the file server has no space left for ${where}`);
    // Which bound (the account's or the service's) is in the message; both pass as sessions go idle.
    case 'TOO_MANY_SESSIONS': return new HttpError(503, 'too_many_sessions', `${err.message}; try again shortly`, { 'retry-after': '5' });
    case 'BAD_NETWORK_NAME':
      return new HttpError(502, 'share_unavailable', `the file server of share ${at.share} does not have it`, {}, `SMB server ${at.server} has no share ${at.share}`);
    case 'TIMEOUT':
    case 'CONNECTION_CLOSED':
    case 'SESSION_EXPIRED':
    case 'PROTOCOL_ERROR':
    case 'SIGNATURE_MISMATCH':
      // Before the logon has succeeded anyone can get this answer: it names no server; the log does.
      return new HttpError(503, 'backend_unavailable', `the file server of share ${at.share} is unavailable; try again later`, { 'retry-after': '5' },
        `SMB server ${at.server}: ${err.message}`);
    default:
      return new HttpError(502, 'backend_error', `the file server failed on ${where} (${err.code})`, {}, `SMB server ${at.server}: ${err.message}`);
  }
}

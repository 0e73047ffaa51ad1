/**
 * Typed errors of the SMB client. Callers switch on `code`; status errors also carry the numeric NTSTATUS.
 * NTSTATUS values: MS-ERREF 2.3.1.
 */
import { logDescription, type DescribesItself } from '../common/describe-error.js';

export type SmbErrorCode =
  | 'NOT_FOUND'
  | 'ACCESS_DENIED'
  | 'SHARING_VIOLATION'
  /** Another open holds a byte-range lock over the range a read, write or lock needs. */
  | 'LOCK_CONFLICT'
  | 'LOGON_FAILURE'
  | 'NAME_COLLISION'
  | 'DIRECTORY_NOT_EMPTY'
  | 'NOT_A_DIRECTORY'
  | 'IS_A_DIRECTORY'
  | 'DELETE_PENDING'
  | 'BAD_NETWORK_NAME'
  | 'INVALID_PARAMETER'
  | 'NOT_SUPPORTED'
  | 'DISK_FULL'
  | 'FILE_CLOSED'
  | 'SESSION_EXPIRED'
  | 'END_OF_FILE'
  /** The request was cancelled (SMB2 CANCEL) before the server answered it otherwise. */
  | 'CANCELLED'
  | 'STATUS_ERROR'
  | 'TIMEOUT'
  | 'CONNECTION_CLOSED'
  | 'PROTOCOL_ERROR'
  | 'SIGNATURE_MISMATCH'
  | 'INVALID_ARGUMENT'
  /** A body over one block could not be staged next to its target: the server refused to create the file there. */
  | 'STAGING_DENIED'
  /** A new session would pass the pool's bound on connections (of one account, or in all): pool.ts. */
  | 'TOO_MANY_SESSIONS';

export const NtStatus = {
  SUCCESS: 0x00000000,
  PENDING: 0x00000103,
  /** CHANGE_NOTIFY: the handle was closed (or its tree or session ended) while the watch was outstanding. */
  NOTIFY_CLEANUP: 0x0000010b,
  /** CHANGE_NOTIFY: more changes than the answer could carry; the caller must list the directory again. */
  NOTIFY_ENUM_DIR: 0x0000010c,
  BUFFER_OVERFLOW: 0x80000005,
  NO_MORE_FILES: 0x80000006,
  STOPPED_ON_SYMLINK: 0x8000002d,
  NOT_IMPLEMENTED: 0xc0000002,
  INVALID_INFO_CLASS: 0xc0000003,
  INVALID_HANDLE: 0xc0000008,
  INVALID_PARAMETER: 0xc000000d,
  NO_SUCH_FILE: 0xc000000f,
  INVALID_DEVICE_REQUEST: 0xc0000010,
  END_OF_FILE: 0xc0000011,
  MORE_PROCESSING_REQUIRED: 0xc0000016,
  ACCESS_DENIED: 0xc0000022,
  BUFFER_TOO_SMALL: 0xc0000023,
  OBJECT_NAME_INVALID: 0xc0000033,
  OBJECT_NAME_NOT_FOUND: 0xc0000034,
  OBJECT_NAME_COLLISION: 0xc0000035,
  OBJECT_PATH_INVALID: 0xc0000039,
  OBJECT_PATH_NOT_FOUND: 0xc000003a,
  OBJECT_PATH_SYNTAX_BAD: 0xc000003b,
  SHARING_VIOLATION: 0xc0000043,
  FILE_LOCK_CONFLICT: 0xc0000054,
  LOCK_NOT_GRANTED: 0xc0000055,
  DELETE_PENDING: 0xc0000056,
  PRIVILEGE_NOT_HELD: 0xc0000061,
  NO_SUCH_USER: 0xc0000064,
  WRONG_PASSWORD: 0xc000006a,
  LOGON_FAILURE: 0xc000006d,
  ACCOUNT_RESTRICTION: 0xc000006e,
  PASSWORD_EXPIRED: 0xc0000071,
  ACCOUNT_DISABLED: 0xc0000072,
  DISK_FULL: 0xc000007f,
  INSUFFICIENT_RESOURCES: 0xc000009a,
  FILE_IS_A_DIRECTORY: 0xc00000ba,
  NOT_SUPPORTED: 0xc00000bb,
  NETWORK_NAME_DELETED: 0xc00000c9,
  BAD_NETWORK_NAME: 0xc00000cc,
  REQUEST_NOT_ACCEPTED: 0xc00000d0,
  NOT_SAME_DEVICE: 0xc00000d4,
  DIRECTORY_NOT_EMPTY: 0xc0000101,
  NOT_A_DIRECTORY: 0xc0000103,
  CANCELLED: 0xc0000120,
  CANNOT_DELETE: 0xc0000121,
  FILE_CLOSED: 0xc0000128,
  USER_SESSION_DELETED: 0xc0000203,
  NOT_FOUND: 0xc0000225,
  ACCOUNT_LOCKED_OUT: 0xc0000234,
  PATH_NOT_COVERED: 0xc0000257,
  NETWORK_SESSION_EXPIRED: 0xc000035c,
} as const;

const statusNames = new Map<number, string>(
  Object.entries(NtStatus).map(([name, value]) => [value, `STATUS_${name}`]),
);

const statusCodes = new Map<number, SmbErrorCode>([
  [NtStatus.NO_SUCH_FILE, 'NOT_FOUND'],
  [NtStatus.OBJECT_NAME_NOT_FOUND, 'NOT_FOUND'],
  [NtStatus.OBJECT_PATH_NOT_FOUND, 'NOT_FOUND'],
  [NtStatus.NOT_FOUND, 'NOT_FOUND'],
  [NtStatus.ACCESS_DENIED, 'ACCESS_DENIED'],
  [NtStatus.PRIVILEGE_NOT_HELD, 'ACCESS_DENIED'],
  [NtStatus.CANNOT_DELETE, 'ACCESS_DENIED'],
  [NtStatus.SHARING_VIOLATION, 'SHARING_VIOLATION'],
  [NtStatus.FILE_LOCK_CONFLICT, 'LOCK_CONFLICT'],
  [NtStatus.LOCK_NOT_GRANTED, 'LOCK_CONFLICT'],
  [NtStatus.LOGON_FAILURE, 'LOGON_FAILURE'],
  [NtStatus.NO_SUCH_USER, 'LOGON_FAILURE'],
  [NtStatus.WRONG_PASSWORD, 'LOGON_FAILURE'],
  [NtStatus.ACCOUNT_RESTRICTION, 'LOGON_FAILURE'],
  [NtStatus.PASSWORD_EXPIRED, 'LOGON_FAILURE'],
  [NtStatus.ACCOUNT_DISABLED, 'LOGON_FAILURE'],
  [NtStatus.ACCOUNT_LOCKED_OUT, 'LOGON_FAILURE'],
  [NtStatus.OBJECT_NAME_COLLISION, 'NAME_COLLISION'],
  [NtStatus.DIRECTORY_NOT_EMPTY, 'DIRECTORY_NOT_EMPTY'],
  [NtStatus.NOT_A_DIRECTORY, 'NOT_A_DIRECTORY'],
  [NtStatus.FILE_IS_A_DIRECTORY, 'IS_A_DIRECTORY'],
  [NtStatus.DELETE_PENDING, 'DELETE_PENDING'],
  [NtStatus.BAD_NETWORK_NAME, 'BAD_NETWORK_NAME'],
  [NtStatus.INVALID_PARAMETER, 'INVALID_PARAMETER'],
  [NtStatus.OBJECT_NAME_INVALID, 'INVALID_PARAMETER'],
  [NtStatus.OBJECT_PATH_INVALID, 'INVALID_PARAMETER'],
  [NtStatus.OBJECT_PATH_SYNTAX_BAD, 'INVALID_PARAMETER'],
  [NtStatus.NOT_SUPPORTED, 'NOT_SUPPORTED'],
  [NtStatus.NOT_IMPLEMENTED, 'NOT_SUPPORTED'],
  [NtStatus.INVALID_INFO_CLASS, 'NOT_SUPPORTED'],
  [NtStatus.INVALID_DEVICE_REQUEST, 'NOT_SUPPORTED'],
  [NtStatus.DISK_FULL, 'DISK_FULL'],
  [NtStatus.FILE_CLOSED, 'FILE_CLOSED'],
  [NtStatus.INVALID_HANDLE, 'FILE_CLOSED'],
  [NtStatus.NOTIFY_CLEANUP, 'FILE_CLOSED'],
  [NtStatus.CANCELLED, 'CANCELLED'],
  [NtStatus.USER_SESSION_DELETED, 'SESSION_EXPIRED'],
  [NtStatus.NETWORK_SESSION_EXPIRED, 'SESSION_EXPIRED'],
  [NtStatus.NETWORK_NAME_DELETED, 'SESSION_EXPIRED'],
  [NtStatus.END_OF_FILE, 'END_OF_FILE'],
]);

export function ntStatusName(status: number): string {
  return statusNames.get(status) ?? `0x${status.toString(16).padStart(8, '0')}`;
}

export class SmbError extends Error implements DescribesItself {
  readonly code: SmbErrorCode;
  constructor(code: SmbErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SmbError';
    this.code = code;
  }

  /** Logs and health reports say what smbErrorSummary says: never the path a message may name. */
  [logDescription](): string {
    return smbErrorSummary(this);
  }
}

/** The server answered with a failing NTSTATUS. */
export class SmbStatusError extends SmbError {
  readonly status: number;
  readonly statusName: string;
  constructor(status: number, context: string) {
    const name = ntStatusName(status);
    super(statusCodes.get(status) ?? 'STATUS_ERROR', `${context}: ${name}`);
    this.name = 'SmbStatusError';
    this.status = status;
    this.statusName = name;
  }
}

/** A frame from the wire violated the protocol (bad length, offset, signature layout, ...). */
export class SmbProtocolError extends SmbError {
  constructor(message: string) {
    super('PROTOCOL_ERROR', message);
    this.name = 'SmbProtocolError';
  }
}

/** The connection is gone; in-flight requests fail with this, the next call reconnects. */
export class SmbConnectionError extends SmbError {
  constructor(message: string, cause?: unknown) {
    super('CONNECTION_CLOSED', message, { cause });
    this.name = 'SmbConnectionError';
  }
}

export class SmbTimeoutError extends SmbError {
  constructor(message: string) {
    super('TIMEOUT', message);
    this.name = 'SmbTimeoutError';
  }
}

/** Errors after which a fresh connection may succeed. */
export function isConnectionFailure(err: unknown): boolean {
  return err instanceof SmbError && (err.code === 'CONNECTION_CLOSED' || err.code === 'TIMEOUT' || err.code === 'SESSION_EXPIRED');
}

/**
 * What an SMB error says, without the path a status error names (`CREATE share\\path: STATUS_…`) or another
 * error's message may carry: for logs and health reports, which never show a share path.
 */
export function smbErrorSummary(error: SmbError): string {
  if (error instanceof SmbStatusError) return `${error.name} ${error.statusName}`;
  return error instanceof SmbConnectionError || error instanceof SmbProtocolError ? `${error.name}: ${error.message}` : `${error.name} ${error.code}`;
}

/**
 * What other folders use of the SMB client: the file-system facade (SmbClient, SmbShare, SmbPool), its errors, and
 * the types and constants its callers name. The protocol layers (Connection, Session, Tree, FileHandle) are the
 * facade's own; a test of a layer imports the layer's module.
 */
export { SmbClient, SmbShare, type SmbStat, type FileVersion, type WalkOptions, type ShareOptions, type WatchOptions, type WatchChange } from './client.js';
export { TEMP_NAME, tempNameBeside, type CommitMode } from './upload.js';
export { retryWhileRefused } from './retry.js';
export { SmbPool, Endpoint, type PooledSession, type RefusedClaims, type SmbPoolOptions, type SmbServer } from './pool.js';
export {
  SmbError,
  SmbStatusError,
  SmbProtocolError,
  SmbConnectionError,
  SmbTimeoutError,
  NtStatus,
  ntStatusName,
  smbErrorSummary,
  type SmbErrorCode,
} from './errors.js';
export { parseSecurityDescriptor, encodeSecurityDescriptor } from './security-descriptor.js';
/** What getSecurity and setSecurity take and give (the model is src/windows-security/'s, which needs no client). */
export {
  grantsRead,
  readAccessSids,
  AceType,
  AceFlags,
  SdControl,
  READ_ACCESS_BITS,
  type SecurityDescriptor,
  type Acl,
  type Ace,
} from '../windows-security/access-control.js';
export type { Credentials, KerberosLogon } from './session.js';
export { Dialect, DIALECT_NAMES, type DialectCode, type DialectName } from './header.js';
export { Access, CreateOptions, Disposition, FileAttributes, ShareAccess } from './messages/create.js';
export { SecurityInformation } from './messages/query.js';
export { FileInfoClass, FileNotifyChange, FileAction } from './fscc.js';

/** Public surface of the SMB client: the file-system facade plus the protocol layers for advanced use. */
export { SmbClient, SmbShare, type SmbStat, type FileVersion, type WalkOptions, type ShareOptions, type WatchOptions, type WatchChange } from './client.js';
export { TEMP_NAME, type CommitMode } from './upload.js';
export { SmbPool, Endpoint, type SmbPoolOptions, type SmbServer } from './pool.js';
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
export {
  parseSecurityDescriptor,
  encodeSecurityDescriptor,
  grantsRead,
  readAccessSids,
  AceType,
  AceFlags,
  SdControl,
  READ_ACCESS_BITS,
  type SecurityDescriptor,
  type Acl,
  type Ace,
} from './security-descriptor.js';
export { Connection, type ConnectionOptions } from './connection.js';
export { Session, type Credentials, type KerberosLogon } from './session.js';
export { Tree } from './tree.js';
export { FileHandle } from './open.js';
export { Dialect, DIALECT_NAMES, type DialectCode, type DialectName } from './header.js';
export { Access, CreateOptions, Disposition, FileAttributes, ShareAccess } from './messages/create.js';
export { SecurityInformation } from './messages/query.js';
export { FileInfoClass, FileNotifyChange, FileAction } from './fscc.js';

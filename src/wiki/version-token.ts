/**
 * A wiki page's version as the index keeps it: what the drift check compares without reading the page. Apart from
 * the rendering (document.ts), so that the smb-reader threads, which only read pages, do not load markdown-it.
 */
import { hash } from 'node:crypto';
import { aclFingerprint, type DocumentAcl } from './acl.js';

/**
 * The drift reconciler compares this with the indexed `version` without reading the page content:
 * size, modification time (ms) and a hash of the read ACL (deriveAcl of the file's security descriptor).
 */
export function versionToken(size: number, modified: Date, acl: DocumentAcl): string {
  const material = `${size}|${modified.getTime()}|${aclFingerprint(acl)}`;
  return hash('sha256', material, 'hex').slice(0, 32);
}

/**
 * A wiki page's version as the index keeps it: what the drift check compares without reading the page. Apart from
 * the rendering (document.ts), so that the smb-reader threads, which only read pages, do not load markdown-it.
 */
import { createHash } from 'node:crypto';
import type { SecurityDescriptor } from '../windows-security/access-control.js';
import { aclFingerprint, deriveAcl } from './acl.js';

/**
 * The drift reconciler compares this with the indexed `version` without reading the page content:
 * size, modification time (ms) and a hash of the read ACL.
 */
export function versionToken(size: number, modified: Date, sd: SecurityDescriptor): string {
  const material = `${size}|${modified.getTime()}|${aclFingerprint(deriveAcl(sd))}`;
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

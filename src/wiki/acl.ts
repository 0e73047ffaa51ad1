/**
 * The read ACL of a wiki page as the search index stores it, derived from the file's NT security descriptor.
 * Search shows a document to a user when one of the user's SIDs is in `allow` and none is in `deny`.
 * That is stricter than Windows' first-match evaluation for non-canonical ACE orders, never looser.
 */
import { hash } from 'node:crypto';
import { AceFlags, AceType, READ_ACCESS_BITS, type Ace, type SecurityDescriptor } from '../windows-security/access-control.js';

/** Everyone: every user, authenticated or not. */
export const EVERYONE_SID = 'S-1-1-0';
/** Authenticated Users: every user who logged on with credentials. */
export const AUTHENTICATED_USERS_SID = 'S-1-5-11';

export interface DocumentAcl {
  /** SIDs granted a read right on the file itself, sorted, without duplicates. */
  allow: string[];
  /** SIDs denied a read right on the file itself, sorted, without duplicates. */
  deny: string[];
}

/** Deny entries of every kind count, conditional ones included: an unclear deny hides rather than shows. */
const DENY_TYPES = new Set<number>([AceType.ACCESS_DENIED, AceType.ACCESS_DENIED_OBJECT, AceType.ACCESS_DENIED_CALLBACK]);

/** An ACE that bears on reading this object: names a SID, carries a read bit and is not INHERIT_ONLY. */
function readsObject(ace: Ace): ace is Ace & { sid: string } {
  return ace.sid !== null && (ace.flags & AceFlags.INHERIT_ONLY) === 0 && (ace.mask & READ_ACCESS_BITS) !== 0;
}

function sortedUnique(sids: Iterable<string>): string[] {
  return [...new Set(sids)].sort();
}

/** The read ACL of these allowed and denied SIDs, in the form the index keeps: each list sorted, without duplicates. */
export function documentAcl(allow: Iterable<string>, deny: Iterable<string>): DocumentAcl {
  return { allow: sortedUnique(allow), deny: sortedUnique(deny) };
}

/**
 * `allow`: SIDs of ACCESS_ALLOWED ACEs with FILE_READ_DATA, GENERIC_READ or GENERIC_ALL (inherited or not).
 * `deny`: SIDs of deny ACEs with any of these bits. A missing (NULL) DACL lets Everyone read; an empty DACL nobody.
 */
export function deriveAcl(sd: SecurityDescriptor): DocumentAcl {
  if (sd.dacl === null) return { allow: [EVERYONE_SID], deny: [] };
  const aces = sd.dacl.aces.filter(readsObject);
  return documentAcl(aces.filter((a) => a.type === AceType.ACCESS_ALLOWED).map((a) => a.sid), aces.filter((a) => DENY_TYPES.has(a.type)).map((a) => a.sid));
}

/** A short stable hash of the ACL, part of a document's version token. */
export function aclFingerprint(acl: DocumentAcl): string {
  return hash('sha256', JSON.stringify([sortedUnique(acl.allow), sortedUnique(acl.deny)]), 'hex').slice(0, 16);
}

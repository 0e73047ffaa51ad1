/**
 * Windows access control (MS-DTYP 2.4.4 to 2.4.6) as the service reads it: a security descriptor's owner, group and
 * ACLs with their ACEs (SIDs in string form), the constants that name their types and flags, and the read decision
 * the wiki indexer derives acl_allow / acl_deny from and the live ACL check asks. No bytes: SMB encodes and parses
 * descriptors (src/smb/security-descriptor.ts); a thread that only decides (the indexer, the ldap-resolver) loads
 * no SMB client.
 */

export const AceType = {
  ACCESS_ALLOWED: 0x00,
  ACCESS_DENIED: 0x01,
  SYSTEM_AUDIT: 0x02,
  SYSTEM_ALARM: 0x03,
  ACCESS_ALLOWED_COMPOUND: 0x04,
  ACCESS_ALLOWED_OBJECT: 0x05,
  ACCESS_DENIED_OBJECT: 0x06,
  SYSTEM_AUDIT_OBJECT: 0x07,
  SYSTEM_ALARM_OBJECT: 0x08,
  ACCESS_ALLOWED_CALLBACK: 0x09,
  ACCESS_DENIED_CALLBACK: 0x0a,
  SYSTEM_MANDATORY_LABEL: 0x11,
} as const;

export const AceFlags = {
  OBJECT_INHERIT: 0x01,
  CONTAINER_INHERIT: 0x02,
  NO_PROPAGATE_INHERIT: 0x04,
  INHERIT_ONLY: 0x08,
  INHERITED: 0x10,
  SUCCESSFUL_ACCESS: 0x40,
  FAILED_ACCESS: 0x80,
} as const;

export const SdControl = {
  DACL_PRESENT: 0x0004,
  DACL_DEFAULTED: 0x0008,
  SACL_PRESENT: 0x0010,
  DACL_AUTO_INHERIT_REQ: 0x0100,
  DACL_AUTO_INHERITED: 0x0400,
  DACL_PROTECTED: 0x1000,
  SELF_RELATIVE: 0x8000,
} as const;

export interface Ace {
  type: number;
  flags: number;
  mask: number;
  /** Trustee SID in string form; null for ACE types whose layout is not SID-based. */
  sid: string | null;
  /**
   * The ACE's bytes after the access mask, kept only when they are more than the SID (object GUIDs, callback
   * data, padding) or of a layout this module does not know; encoding writes them back as they are (and then
   * ignores `sid`).
   */
  data?: Buffer;
}

export interface Acl {
  revision: number;
  aces: Ace[];
}

export interface SecurityDescriptor {
  revision: number;
  control: number;
  owner: string | null;
  group: string | null;
  /** null = no DACL (everyone has full access); an empty ACL denies everyone. */
  dacl: Acl | null;
  sacl: Acl | null;
}

/** Access mask bits that let a trustee read a file's content. */
export const READ_ACCESS_BITS = 0x00000001 /* FILE_READ_DATA */ | 0x80000000 /* GENERIC_READ */ | 0x10000000; /* GENERIC_ALL */

function appliesToObject(ace: Ace): boolean {
  return (ace.flags & AceFlags.INHERIT_ONLY) === 0 && (ace.mask & READ_ACCESS_BITS) !== 0;
}

/**
 * Whether the DACL lets any of `sids` (a user and its groups) read: ACEs are evaluated in order, the first
 * ACCESS_DENIED or ACCESS_ALLOWED entry naming one of the SIDs with a read bit decides. No DACL grants everything.
 */
export function grantsRead(sd: SecurityDescriptor, sids: string | readonly string[]): boolean {
  if (!sd.dacl) return true;
  const wanted = new Set(typeof sids === 'string' ? [sids] : sids);
  for (const ace of sd.dacl.aces) {
    if (!ace.sid || !wanted.has(ace.sid) || !appliesToObject(ace)) continue;
    if (ace.type === AceType.ACCESS_DENIED) return false;
    if (ace.type === AceType.ACCESS_ALLOWED) return true;
  }
  return false;
}

/** SIDs with an allow or deny read entry, for indexing (deny wins where a SID has both). */
export function readAccessSids(sd: SecurityDescriptor): { allow: string[]; deny: string[] } {
  const allow = new Set<string>();
  const deny = new Set<string>();
  for (const ace of sd.dacl?.aces ?? []) {
    if (!ace.sid || !appliesToObject(ace)) continue;
    if (ace.type === AceType.ACCESS_DENIED) deny.add(ace.sid);
    else if (ace.type === AceType.ACCESS_ALLOWED && !deny.has(ace.sid)) allow.add(ace.sid);
  }
  for (const sid of deny) allow.delete(sid);
  return { allow: [...allow], deny: [...deny] };
}

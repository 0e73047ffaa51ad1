/**
 * Self-relative security descriptors (MS-DTYP 2.4.6): owner, group, DACL/SACL with their ACEs, and the read
 * decision the wiki indexer derives acl_allow / acl_deny from.
 */
import { SmbProtocolError } from './errors.js';
import { WireReader } from './wire.js';

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

export const SdControl = { DACL_PRESENT: 0x0004, SACL_PRESENT: 0x0010, SELF_RELATIVE: 0x8000 } as const;

export interface Ace {
  type: number;
  flags: number;
  mask: number;
  /** Trustee SID in string form; null for ACE types whose layout is not SID-based. */
  sid: string | null;
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

export function parseSid(r: WireReader, at: number): { sid: string; size: number } {
  const revision = r.u8(at);
  const count = r.u8(at + 1);
  if (revision !== 1) throw new SmbProtocolError(`SID revision ${revision} is not 1`);
  if (count > 15) throw new SmbProtocolError(`SID has ${count} sub-authorities (max 15)`);
  const auth = r.bytes(at + 2, 6);
  const authority = auth.readUIntBE(0, 6);
  const subs: number[] = [];
  for (let i = 0; i < count; i++) subs.push(r.u32(at + 8 + 4 * i));
  return { sid: ['S', revision, authority, ...subs].join('-'), size: 8 + 4 * count };
}

export function encodeSid(sid: string): Buffer {
  const m = /^S-1-(\d+)((?:-\d+)*)$/.exec(sid);
  if (!m) throw new SmbProtocolError(`invalid SID string '${sid}'`);
  const subs = m[2] ? m[2].slice(1).split('-').map(Number) : [];
  const b = Buffer.alloc(8 + 4 * subs.length);
  b[0] = 1;
  b[1] = subs.length;
  b.writeUIntBE(Number(m[1]), 2, 6);
  subs.forEach((s, i) => b.writeUInt32LE(s, 8 + 4 * i));
  return b;
}

/** ACE types laid out as header, mask, SID (MS-DTYP 2.4.4.2 ff.); callback ACEs append application data. */
const SID_ACE_TYPES = new Set<number>([
  AceType.ACCESS_ALLOWED,
  AceType.ACCESS_DENIED,
  AceType.SYSTEM_AUDIT,
  AceType.SYSTEM_ALARM,
  AceType.ACCESS_ALLOWED_CALLBACK,
  AceType.ACCESS_DENIED_CALLBACK,
  AceType.SYSTEM_MANDATORY_LABEL,
]);
const OBJECT_ACE_TYPES = new Set<number>([
  AceType.ACCESS_ALLOWED_OBJECT,
  AceType.ACCESS_DENIED_OBJECT,
  AceType.SYSTEM_AUDIT_OBJECT,
  AceType.SYSTEM_ALARM_OBJECT,
]);

function parseAcl(r: WireReader, at: number): Acl {
  const revision = r.u8(at);
  const size = r.u16(at + 2);
  const count = r.u16(at + 4);
  if (size < 8) throw new SmbProtocolError(`ACL size ${size} is smaller than its header`);
  const acl = r.sub(at, size, 'ACL');
  const aces: Ace[] = [];
  let off = 8;
  for (let i = 0; i < count; i++) {
    const type = acl.u8(off);
    const flags = acl.u8(off + 1);
    const aceSize = acl.u16(off + 2);
    if (aceSize < 8) throw new SmbProtocolError(`ACE ${i} has size ${aceSize}`);
    const ace = acl.sub(off, aceSize, 'ACE');
    const mask = ace.u32(4);
    let sid: string | null = null;
    if (SID_ACE_TYPES.has(type)) sid = parseSid(ace, 8).sid;
    else if (OBJECT_ACE_TYPES.has(type)) {
      const objectFlags = ace.u32(8);
      const sidAt = 12 + (objectFlags & 1 ? 16 : 0) + (objectFlags & 2 ? 16 : 0);
      sid = parseSid(ace, sidAt).sid;
    }
    aces.push({ type, flags, mask, sid });
    off += aceSize;
  }
  return { revision, aces };
}

export function parseSecurityDescriptor(buf: Buffer): SecurityDescriptor {
  const r = new WireReader(buf, 'security descriptor');
  const revision = r.u8(0);
  if (revision !== 1) throw new SmbProtocolError(`security descriptor revision ${revision} is not 1`);
  const control = r.u16(2);
  const ownerAt = r.u32(4);
  const groupAt = r.u32(8);
  const saclAt = r.u32(12);
  const daclAt = r.u32(16);
  return {
    revision,
    control,
    owner: ownerAt ? parseSid(r, ownerAt).sid : null,
    group: groupAt ? parseSid(r, groupAt).sid : null,
    sacl: control & SdControl.SACL_PRESENT && saclAt ? parseAcl(r, saclAt) : null,
    dacl: control & SdControl.DACL_PRESENT && daclAt ? parseAcl(r, daclAt) : null,
  };
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

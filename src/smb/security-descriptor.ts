/**
 * Self-relative security descriptors (MS-DTYP 2.4.6): owner, group, DACL/SACL with their ACEs, parsed and
 * encoded (parse and encode round-trip), and the read decision the wiki indexer derives acl_allow / acl_deny from.
 */
import { SmbError, SmbProtocolError } from './errors.js';
import { WireReader } from './wire.js';
import { encodeSid, inProtocol, readSid } from '../sid/sid.js';

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

/** The SID at `at` of `r`; a malformed one is a protocol error of the server's answer. */
function parseSid(r: WireReader, at: number): { sid: string; size: number } {
  return inProtocol(() => readSid(r.buf, at), (message) => new SmbProtocolError(`${r.what}: ${message}`));
}

/** The binary form of a SID the caller gives; a malformed one is the caller's error. */
function sidBytes(sid: string): Buffer {
  return inProtocol(() => encodeSid(sid), (message) => new SmbError('INVALID_ARGUMENT', message));
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
    let plain = false;
    if (SID_ACE_TYPES.has(type)) {
      const parsed = parseSid(ace, 8);
      sid = parsed.sid;
      plain = aceSize === 8 + parsed.size;
    } else if (OBJECT_ACE_TYPES.has(type)) {
      const objectFlags = ace.u32(8);
      const sidAt = 12 + (objectFlags & 1 ? 16 : 0) + (objectFlags & 2 ? 16 : 0);
      sid = parseSid(ace, sidAt).sid;
    }
    aces.push(plain ? { type, flags, mask, sid } : { type, flags, mask, sid, data: Buffer.from(ace.bytes(8, aceSize - 8)) });
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

/** Largest ACE and ACL: their sizes are 16-bit fields. */
const MAX_ACL_SIZE = 0xffff;

function encodeAce(ace: Ace, index: number): Buffer {
  if (ace.data === undefined && ace.sid === null) throw new SmbError('INVALID_ARGUMENT', `ACE ${index} has neither a SID nor its bytes`);
  const body = ace.data ?? sidBytes(ace.sid!);
  if (8 + body.length > MAX_ACL_SIZE - 8) throw new SmbError('INVALID_ARGUMENT', `ACE ${index} is too large (${8 + body.length} bytes)`);
  if (!isU8(ace.type) || !isU8(ace.flags) || !isU32(ace.mask)) throw new SmbError('INVALID_ARGUMENT', `ACE ${index} has a type, flags or mask out of range`);
  const head = Buffer.alloc(8);
  head[0] = ace.type;
  head[1] = ace.flags;
  head.writeUInt16LE(8 + body.length, 2);
  head.writeUInt32LE(ace.mask, 4);
  return Buffer.concat([head, body]);
}

function encodeAcl(acl: Acl): Buffer {
  if (!isU8(acl.revision)) throw new SmbError('INVALID_ARGUMENT', `ACL revision ${acl.revision} is out of range`);
  const aces = acl.aces.map(encodeAce);
  const size = 8 + aces.reduce((sum, a) => sum + a.length, 0);
  if (size > MAX_ACL_SIZE) throw new SmbError('INVALID_ARGUMENT', `ACL of ${acl.aces.length} ACEs is too large (${size} bytes)`);
  const head = Buffer.alloc(8);
  head[0] = acl.revision;
  head.writeUInt16LE(size, 2);
  head.writeUInt16LE(aces.length, 4);
  return Buffer.concat([head, ...aces]);
}

/**
 * The self-relative form of `sd`, laid out as Samba and Windows answer a query: header, owner, group, SACL,
 * DACL. SELF_RELATIVE and the PRESENT bits of the ACLs given are set; a NULL DACL is DACL_PRESENT with no DACL.
 */
export function encodeSecurityDescriptor(sd: SecurityDescriptor): Buffer {
  if (sd.revision !== 1) throw new SmbError('INVALID_ARGUMENT', `security descriptor revision ${sd.revision} is not 1`);
  if (!isU16(sd.control)) throw new SmbError('INVALID_ARGUMENT', `security descriptor control 0x${sd.control.toString(16)} is out of range`);
  const parts = [sd.owner, sd.group].map((sid) => (sid === null ? null : sidBytes(sid)));
  parts.push(sd.sacl && encodeAcl(sd.sacl), sd.dacl && encodeAcl(sd.dacl));
  const head = Buffer.alloc(20);
  head[0] = 1;
  let control = sd.control | SdControl.SELF_RELATIVE;
  if (sd.sacl) control |= SdControl.SACL_PRESENT;
  if (sd.dacl) control |= SdControl.DACL_PRESENT;
  head.writeUInt16LE(control, 2);
  let at = head.length;
  parts.forEach((part, i) => {
    if (!part) return;
    head.writeUInt32LE(at, 4 + 4 * i);
    at += part.length;
  });
  return Buffer.concat([head, ...parts.filter((p): p is Buffer => p !== null)]);
}

function isU8(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xff;
}
function isU16(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffff;
}
function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
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

/**
 * Self-relative security descriptors (MS-DTYP 2.4.6) as SMB's QUERY_INFO and SET_INFO carry them: owner, group,
 * DACL/SACL with their ACEs, parsed and encoded (parse and encode round-trip). What they mean (the ACE types and
 * flags, the read decision) is src/windows-security/access-control.ts's.
 */
import { SmbError, SmbProtocolError } from './errors.js';
import { WireReader } from './wire.js';
import { encodeSid, inProtocol, readSid } from '../windows-security/sid.js';
import { AceType, SdControl, type Ace, type Acl, type SecurityDescriptor } from '../windows-security/access-control.js';

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

// The security descriptor encoder: byte-exact round trips of what Samba sends, ACEs this module does not model
// field by field kept as they are, and refusal of what cannot be encoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSecurityDescriptor, parseSecurityDescriptor } from '../../../src/smb/security-descriptor.js';
import { AceFlags, AceType, SdControl, type Ace, type SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import { encodeSid } from '../../../src/windows-security/sid.js';
import { rawAce, rawAcl, sambaSecurityDescriptors, securityDescriptor } from './frames.js';

const LEHRER = 'S-1-5-21-2386233527-2998764211-488225206-1102';
const CARLA = 'S-1-5-21-2386233527-2998764211-488225206-1109';

test('security descriptors read from Samba encode back to the same bytes', () => {
  for (const [name, bytes] of Object.entries(sambaSecurityDescriptors)) {
    const sd = parseSecurityDescriptor(bytes);
    assert.deepEqual(encodeSecurityDescriptor(sd), bytes, name);
  }
  assert.deepEqual(encodeSecurityDescriptor(parseSecurityDescriptor(securityDescriptor())), securityDescriptor());
});

test('what the parser reads from Samba: protected flag, inherit flags, deny ACEs, a NULL DACL', () => {
  const page = parseSecurityDescriptor(sambaSecurityDescriptors['protectedPage']!);
  assert.equal(page.control & SdControl.DACL_PROTECTED, SdControl.DACL_PROTECTED);
  assert.deepEqual(page.dacl?.aces.map((a) => a.sid), ['S-1-5-32-544', LEHRER]);
  const daclOnly = parseSecurityDescriptor(sambaSecurityDescriptors['protectedPageDacl']!);
  assert.deepEqual(daclOnly, { ...page, owner: null, group: null });
  const folder = parseSecurityDescriptor(sambaSecurityDescriptors['mixedFolder']!);
  assert.deepEqual(folder.dacl?.aces, [
    { type: AceType.ACCESS_DENIED, flags: AceFlags.OBJECT_INHERIT | AceFlags.CONTAINER_INHERIT, mask: 0x1, sid: CARLA },
    { type: AceType.ACCESS_ALLOWED, flags: 0x0b, mask: 0x120089, sid: 'S-1-3-0' },
    { type: AceType.ACCESS_ALLOWED, flags: AceFlags.CONTAINER_INHERIT, mask: 0x1301bf, sid: LEHRER },
    { type: AceType.ACCESS_ALLOWED, flags: 0x13, mask: 0x1ff, sid: 'S-1-5-32-544' },
  ]);
  const open = parseSecurityDescriptor(sambaSecurityDescriptors['nullDacl']!);
  assert.equal(open.dacl, null);
  assert.equal(open.control & SdControl.DACL_PRESENT, SdControl.DACL_PRESENT);
});

test('a descriptor built from scratch gets SELF_RELATIVE and the PRESENT bits, and parses back', () => {
  const sd: SecurityDescriptor = {
    revision: 1,
    control: SdControl.DACL_PROTECTED,
    owner: null,
    group: null,
    sacl: null,
    dacl: { revision: 2, aces: [{ type: AceType.ACCESS_ALLOWED, flags: 0, mask: 0x1301bf, sid: LEHRER }] },
  };
  const back = parseSecurityDescriptor(encodeSecurityDescriptor(sd));
  assert.deepEqual(back, { ...sd, control: SdControl.DACL_PROTECTED | SdControl.DACL_PRESENT | SdControl.SELF_RELATIVE });
});

test('object and callback ACEs and ACEs of unknown types are written back byte for byte', () => {
  const sid = encodeSid(CARLA);
  const objectFlags = Buffer.alloc(4);
  objectFlags.writeUInt32LE(1, 0); // an ObjectType GUID follows
  const ace = (type: number, body: Buffer): Buffer => rawAce(type, AceFlags.INHERITED, 0x20089, body);
  const acl = rawAcl(4, [
    ace(AceType.ACCESS_ALLOWED_OBJECT, Buffer.concat([objectFlags, Buffer.alloc(16, 0xab), sid])),
    ace(AceType.ACCESS_ALLOWED_CALLBACK, Buffer.concat([sid, Buffer.from('artx\x01\x02\x03\x00', 'latin1')])),
    ace(0x42, Buffer.from([1, 2, 3, 4])),
    ace(AceType.ACCESS_DENIED, Buffer.concat([sid, Buffer.alloc(4)])), // padded
  ]);
  const head = Buffer.alloc(20);
  head[0] = 1;
  head.writeUInt16LE(SdControl.SELF_RELATIVE | SdControl.DACL_PRESENT, 2);
  head.writeUInt32LE(20, 16);
  const bytes = Buffer.concat([head, acl]);
  const sd = parseSecurityDescriptor(bytes);
  assert.deepEqual(sd.dacl?.aces.map((a) => a.sid), [CARLA, CARLA, null, CARLA], 'the SIDs are still read for decisions');
  assert.deepEqual(encodeSecurityDescriptor(sd), bytes);
});

test('what cannot be encoded is refused with INVALID_ARGUMENT, never written half', () => {
  const base: SecurityDescriptor = { revision: 1, control: 0, owner: null, group: null, sacl: null, dacl: { revision: 2, aces: [] } };
  const withAce = (ace: Partial<Ace>): SecurityDescriptor => ({
    ...base,
    dacl: { revision: 2, aces: [{ type: 0, flags: 0, mask: 1, sid: 'S-1-1-0', ...ace }] },
  });
  const refused = [
    { ...base, revision: 2 },
    { ...base, control: 0x10000 },
    { ...base, owner: 'S-1-5-21-x' },
    { ...base, owner: `S-1-5${'-1'.repeat(16)}` },
    { ...base, group: 'S-1-281474976710656-1' },
    { ...base, owner: 'S-1-5-4294967296' },
    { ...base, dacl: { revision: 256, aces: [] } },
    withAce({ type: 256 }),
    withAce({ flags: -1 }),
    withAce({ mask: 2 ** 32 }),
    withAce({ sid: null }),
    withAce({ data: Buffer.alloc(0xfff8) }),
    { ...base, dacl: { revision: 2, aces: Array.from({ length: 3000 }, () => ({ type: 0, flags: 0, mask: 1, sid: 'S-1-5-21-1-2-3-4' })) } },
  ];
  for (const sd of refused) assert.throws(() => encodeSecurityDescriptor(sd), { code: 'INVALID_ARGUMENT' }, JSON.stringify(sd).slice(0, 120));
});

test('a malformed SID in a descriptor the server sends is a protocol error that says where it is', () => {
  const edited = (at: number, value: number) => {
    const bytes = Buffer.from(securityDescriptor());
    bytes[at] = value;
    return bytes;
  };
  // The owner's SID starts at 20 (after the header); the first ACE's at 20 + 16 (owner) + 28 (group) + 8 (ACL) + 8 (ACE header).
  assert.throws(() => parseSecurityDescriptor(edited(20, 2)), { name: 'SmbProtocolError', message: /^security descriptor: unsupported SID revision 2/ });
  assert.throws(() => parseSecurityDescriptor(edited(81, 6)), { name: 'SmbProtocolError', message: /^ACE: SID with 6 sub-authorities must be 32 bytes, only 28/ });
});

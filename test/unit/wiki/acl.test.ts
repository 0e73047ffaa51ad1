import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AceFlags, AceType, type Ace, type SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import { aclFingerprint, deriveAcl, EVERYONE_SID } from '../../../src/wiki/acl.js';

const TEACHERS = 'S-1-5-21-1-2-3-1101';
const PUPILS = 'S-1-5-21-1-2-3-1102';
const ADMINS = 'S-1-5-21-1-2-3-1103';
const FILE_READ_DATA = 0x1;
const FILE_WRITE_DATA = 0x2;
const FILE_READ_ATTRIBUTES = 0x80;
const GENERIC_READ = 0x80000000;
const GENERIC_ALL = 0x10000000;
const FULL_CONTROL = 0x1f01ff;

function ace(type: number, sid: string, mask: number, flags = 0): Ace {
  return { type, flags, mask, sid };
}

function sd(aces: Ace[] | null): SecurityDescriptor {
  return { revision: 1, control: 0x8004, owner: ADMINS, group: null, dacl: aces && { revision: 2, aces }, sacl: null };
}

describe('deriveAcl', () => {
  it('allows SIDs with FILE_READ_DATA, GENERIC_READ or GENERIC_ALL, sorted and unique', () => {
    const acl = deriveAcl(
      sd([
        ace(AceType.ACCESS_ALLOWED, TEACHERS, FILE_READ_DATA),
        ace(AceType.ACCESS_ALLOWED, PUPILS, GENERIC_READ),
        ace(AceType.ACCESS_ALLOWED, ADMINS, GENERIC_ALL),
        ace(AceType.ACCESS_ALLOWED, TEACHERS, FULL_CONTROL),
      ]),
    );
    assert.deepEqual(acl, { allow: [TEACHERS, PUPILS, ADMINS].sort(), deny: [] });
  });

  it('ignores allow entries without a read right', () => {
    const acl = deriveAcl(sd([ace(AceType.ACCESS_ALLOWED, PUPILS, FILE_WRITE_DATA | FILE_READ_ATTRIBUTES)]));
    assert.deepEqual(acl, { allow: [], deny: [] });
  });

  it('lists deny entries that deny a read right, and keeps the SID in allow too', () => {
    const acl = deriveAcl(
      sd([
        ace(AceType.ACCESS_DENIED, PUPILS, FILE_READ_DATA),
        ace(AceType.ACCESS_DENIED, TEACHERS, FILE_WRITE_DATA),
        ace(AceType.ACCESS_ALLOWED, PUPILS, GENERIC_READ),
        ace(AceType.ACCESS_ALLOWED, EVERYONE_SID, FULL_CONTROL),
      ]),
    );
    assert.deepEqual(acl, { allow: [EVERYONE_SID, PUPILS], deny: [PUPILS] });
  });

  it('counts inherited entries', () => {
    const acl = deriveAcl(
      sd([
        ace(AceType.ACCESS_ALLOWED, TEACHERS, FULL_CONTROL, AceFlags.INHERITED),
        ace(AceType.ACCESS_DENIED, PUPILS, GENERIC_READ, AceFlags.INHERITED | AceFlags.OBJECT_INHERIT),
      ]),
    );
    assert.deepEqual(acl, { allow: [TEACHERS], deny: [PUPILS] });
  });

  it('skips INHERIT_ONLY entries: they apply to children, not to this file', () => {
    const acl = deriveAcl(
      sd([
        ace(AceType.ACCESS_ALLOWED, PUPILS, FULL_CONTROL, AceFlags.INHERIT_ONLY | AceFlags.OBJECT_INHERIT),
        ace(AceType.ACCESS_DENIED, TEACHERS, FULL_CONTROL, AceFlags.INHERIT_ONLY | AceFlags.CONTAINER_INHERIT),
        ace(AceType.ACCESS_ALLOWED, ADMINS, FULL_CONTROL),
      ]),
    );
    assert.deepEqual(acl, { allow: [ADMINS], deny: [] });
  });

  it('keeps Everyone like any other SID', () => {
    assert.deepEqual(deriveAcl(sd([ace(AceType.ACCESS_ALLOWED, EVERYONE_SID, GENERIC_READ)])), {
      allow: [EVERYONE_SID],
      deny: [],
    });
  });

  it('treats a NULL DACL as Everyone allowed and an empty DACL as nobody', () => {
    assert.deepEqual(deriveAcl(sd(null)), { allow: [EVERYONE_SID], deny: [] });
    assert.deepEqual(deriveAcl(sd([])), { allow: [], deny: [] });
  });

  it('ignores audit entries and ACEs without a SID', () => {
    const acl = deriveAcl(
      sd([ace(AceType.SYSTEM_AUDIT, PUPILS, GENERIC_READ), { type: AceType.ACCESS_ALLOWED, flags: 0, mask: GENERIC_READ, sid: null }]),
    );
    assert.deepEqual(acl, { allow: [], deny: [] });
  });

  it('counts conditional and object deny entries as deny (fail-closed)', () => {
    const acl = deriveAcl(
      sd([ace(AceType.ACCESS_DENIED_CALLBACK, PUPILS, GENERIC_READ), ace(AceType.ACCESS_DENIED_OBJECT, TEACHERS, FILE_READ_DATA)]),
    );
    assert.deepEqual(acl.deny, [TEACHERS, PUPILS].sort());
  });

  it('fingerprints the ACL independent of order, and differently for allow and deny', () => {
    assert.equal(aclFingerprint({ allow: [PUPILS, TEACHERS], deny: [] }), aclFingerprint({ allow: [TEACHERS, PUPILS], deny: [] }));
    assert.notEqual(aclFingerprint({ allow: [PUPILS], deny: [] }), aclFingerprint({ allow: [], deny: [PUPILS] }));
  });
});

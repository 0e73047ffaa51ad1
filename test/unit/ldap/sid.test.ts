import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSid, encodeSid, SidFormatError } from '../../../src/ldap/sid.js';

describe('objectSid', () => {
  it('decodes the binary form of a domain SID', () => {
    // S-1-5-21-1004336348-1177238915-682003330-512 as stored in AD
    const bytes = Buffer.from('010500000000000515000000dcf4dc3b833d2b46828ba62800020000', 'hex');
    assert.equal(decodeSid(bytes), 'S-1-5-21-1004336348-1177238915-682003330-512');
  });

  it('decodes well-known SIDs', () => {
    assert.equal(decodeSid(Buffer.from('0101000000000005' + '12000000', 'hex')), 'S-1-5-18');
    assert.equal(decodeSid(Buffer.from('0102000000000005' + '20000000' + '21020000', 'hex')), 'S-1-5-32-545');
  });

  it('round-trips through encodeSid', () => {
    for (const sid of ['S-1-5-21-1004336348-1177238915-682003330-1105', 'S-1-1-0', 'S-1-5-32-544', 'S-1-16-12288']) {
      assert.equal(decodeSid(encodeSid(sid)), sid);
    }
  });

  it('decodes from a view into a larger buffer', () => {
    const inner = encodeSid('S-1-5-21-1-2-3-4');
    const outer = Buffer.concat([Buffer.from([9, 9, 9]), inner]);
    assert.equal(decodeSid(outer.subarray(3)), 'S-1-5-21-1-2-3-4');
  });

  it('rejects malformed binary SIDs', () => {
    assert.throws(() => decodeSid(Buffer.alloc(4)), SidFormatError);
    assert.throws(() => decodeSid(Buffer.from('0102000000000005' + '20000000', 'hex')), /must be 16 bytes/);
    assert.throws(() => decodeSid(Buffer.from('0200000000000005', 'hex')), /revision/);
  });

  it('rejects malformed SID strings', () => {
    for (const bad of ['S-2-5-21', 'S-1-5-x', '1-5-21', 'S-1-5-4294967296', '']) {
      assert.throws(() => encodeSid(bad), SidFormatError, bad);
    }
  });
});

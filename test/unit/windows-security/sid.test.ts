import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSid, encodeSid, inProtocol, readSid, SidFormatError } from '../../../src/windows-security/sid.js';

// The one SID codec that LDAP, the SMB security descriptors and the Kerberos PAC read and write SIDs with.
describe('SID codec', () => {
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

  it('reads a SID inside a larger structure and says how many bytes it took', () => {
    const inner = encodeSid('S-1-5-32-544');
    const outer = Buffer.concat([Buffer.from([7, 7]), inner, Buffer.from([0xff, 0xff, 0xff])]);
    assert.deepEqual(readSid(outer, 2), { sid: 'S-1-5-32-544', size: 16 });
  });

  it('round-trips the largest identifier authority and sub-authority', () => {
    const sid = `S-1-${2 ** 48 - 1}${'-4294967295'.repeat(15)}`;
    assert.equal(decodeSid(encodeSid(sid)), sid);
  });

  it('rejects malformed binary SIDs with what is wrong', () => {
    assert.throws(() => decodeSid(Buffer.alloc(4)), { name: 'SidFormatError', message: /needs at least 8 bytes at offset 0, the data has 4/ });
    assert.throws(() => decodeSid(Buffer.from('0102000000000005' + '20000000', 'hex')), { name: 'SidFormatError', message: /must be 16 bytes, only 12 are there/ });
    assert.throws(() => decodeSid(Buffer.from('0200000000000005', 'hex')), { name: 'SidFormatError', message: /unsupported SID revision 2/ });
    assert.throws(() => decodeSid(Buffer.from('0110000000000005' + '00'.repeat(64), 'hex')), { name: 'SidFormatError', message: /at most 15 sub-authorities, this one announces 16/ });
    assert.throws(() => decodeSid(Buffer.concat([encodeSid('S-1-5-18'), Buffer.alloc(4)])), { name: 'SidFormatError', message: /SID S-1-5-18 must be 12 bytes, got 16/ });
    assert.throws(() => readSid(encodeSid('S-1-5-18'), 8), { name: 'SidFormatError', message: /at offset 8, the data has 12/ });
    assert.throws(() => readSid(encodeSid('S-1-5-18'), -1), SidFormatError);
  });

  it('rejects malformed SID strings', () => {
    for (const bad of ['S-2-5-21', 'S-1-5-x', '1-5-21', 'S-1-5-4294967296', '', `S-1-${2 ** 48}-1`, `S-1-5${'-1'.repeat(16)}`, 'S-1-5-21-']) {
      assert.throws(() => encodeSid(bad), SidFormatError, bad);
    }
  });

  it('turns its own errors, and only those, into the caller protocol\'s error', () => {
    class ProtocolError extends Error {}
    assert.throws(() => inProtocol(() => encodeSid('S-1-x'), (message) => new ProtocolError(`bad: ${message}`)), (error) => error instanceof ProtocolError && /^bad: 'S-1-x' is not a SID/.test(error.message));
    const other = new RangeError('not a SID problem');
    assert.throws(() => inProtocol(() => { throw other; }, (message) => new ProtocolError(message)), (error) => error === other);
    assert.equal(inProtocol(() => decodeSid(encodeSid('S-1-1-0')), (message) => new ProtocolError(message)), 'S-1-1-0');
  });
});

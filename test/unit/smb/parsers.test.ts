import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AceType, grantsRead, parseSecurityDescriptor, readAccessSids } from '../../../src/smb/security-descriptor.js';
import { parseIdFullDirectoryInfo } from '../../../src/smb/fscc.js';
import { parseCloseResponse, parseCreateResponse, parseNegotiateResponse, parseOutputBuffer, parseValidateNegotiateResponse } from '../../../src/smb/messages.js';
import { normalizePath, toSmbPath } from '../../../src/smb/paths.js';
import { WireReader } from '../../../src/smb/wire.js';
import { closeResponse, createResponse, directoryEntries, negotiateResponse, outputBufferResponse, securityDescriptor, validateNegotiateResponse } from './frames.js';

test('security descriptor: owner, group, ACE types, flags, masks and SIDs', () => {
  const sd = parseSecurityDescriptor(securityDescriptor());
  assert.equal(sd.owner, 'S-1-5-32-544');
  assert.equal(sd.group, 'S-1-5-21-1-2-3-513');
  assert.deepEqual(sd.dacl?.aces, [
    { type: AceType.ACCESS_DENIED, flags: 0, mask: 0x1, sid: 'S-1-5-21-1-2-3-1108' },
    { type: AceType.ACCESS_ALLOWED, flags: 3, mask: 0x1f01ff, sid: 'S-1-5-32-544' },
    { type: AceType.ACCESS_ALLOWED, flags: 0x0b, mask: 0x80000000, sid: 'S-1-5-21-1-2-3-1107' },
    { type: AceType.ACCESS_ALLOWED, flags: 0, mask: 0x1200a9, sid: 'S-1-1-0' },
  ]);
});

test('grantsRead: first matching deny or allow decides; inherit-only ACEs do not apply to the object', () => {
  const sd = parseSecurityDescriptor(securityDescriptor());
  assert.equal(grantsRead(sd, 'S-1-5-32-544'), true);
  assert.equal(grantsRead(sd, ['S-1-5-21-1-2-3-1108', 'S-1-1-0']), false, 'deny precedes the Everyone allow');
  assert.equal(grantsRead(sd, 'S-1-5-21-1-2-3-1107'), false, 'its GENERIC_READ ACE is inherit-only');
  assert.equal(grantsRead(sd, ['S-1-5-21-1-2-3-1107', 'S-1-1-0']), true);
  assert.equal(grantsRead(sd, 'S-1-5-21-9-9-9-1000'), false);
  assert.equal(grantsRead({ ...sd, dacl: null }, 'S-1-5-21-9-9-9-1000'), true, 'no DACL grants everyone');
  assert.deepEqual(readAccessSids(sd), { allow: ['S-1-5-32-544', 'S-1-1-0'], deny: ['S-1-5-21-1-2-3-1108'] });
});

test('directory listings, CREATE, CLOSE, IOCTL and NEGOTIATE responses parse from synthetic frames', () => {
  const entries = parseIdFullDirectoryInfo(directoryEntries(['a.txt', 'Schülerzeitung']));
  assert.deepEqual(entries.map((e) => [e.name, e.endOfFile, e.fileId]), [['a.txt', 100, '1000'], ['Schülerzeitung', 101, '1001']]);
  const c = parseCreateResponse(new WireReader(createResponse(1n), 'test'));
  assert.equal(c.endOfFile, 4096);
  assert.deepEqual(c.fileId, Buffer.alloc(16, 0x11));
  const n = parseNegotiateResponse(new WireReader(negotiateResponse(0n), 'test'));
  assert.equal(n.dialect, 0x311);
  assert.equal(n.cipher, 2);
  const out = parseOutputBuffer(new WireReader(outputBufferResponse(16, 2n, Buffer.from('abc')), 'test'), 'QUERY_INFO');
  assert.equal(out.toString(), 'abc');
  assert.equal(parseCloseResponse(new WireReader(closeResponse(3n), 'test')).endOfFile, 5);
  assert.equal(parseValidateNegotiateResponse(new WireReader(validateNegotiateResponse(4n), 'test')).dialect, 0x302);
});

test('lengths pointing outside the frame raise PROTOCOL_ERROR', () => {
  const frame = outputBufferResponse(16, 2n, Buffer.from('abc'));
  frame.writeUInt32LE(1 << 30, 68);
  assert.throws(() => parseOutputBuffer(new WireReader(frame, 'test'), 'QUERY_INFO'), { code: 'PROTOCOL_ERROR' });
  const dir = directoryEntries(['a', 'b']);
  dir.writeUInt32LE(4, 0);
  assert.throws(() => parseIdFullDirectoryInfo(dir), { code: 'PROTOCOL_ERROR' });
  const sd = securityDescriptor();
  sd.writeUInt32LE(sd.length - 2, 4);
  assert.throws(() => parseSecurityDescriptor(sd), { code: 'PROTOCOL_ERROR' });
});

test('paths: forward slashes become backslashes, traversal and bad characters are refused', () => {
  assert.equal(toSmbPath('/Fachschaften/Mathe/'), 'Fachschaften\\Mathe');
  assert.equal(toSmbPath(''), '');
  assert.equal(normalizePath('a//./b'), 'a/b');
  assert.throws(() => toSmbPath('a/../b'), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => toSmbPath('a\\b'), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => toSmbPath('what?'), { code: 'INVALID_ARGUMENT' });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSecurityDescriptor } from '../../../src/smb/security-descriptor.js';
import { AceType, grantsRead, readAccessSids } from '../../../src/windows-security/access-control.js';
import { FileAction, FileNotifyChange, parseFileNotifyInformation, parseIdFullDirectoryInfo } from '../../../src/smb/fscc.js';
import { Command } from '../../../src/smb/header.js';
import { changeNotifyRequest } from '../../../src/smb/messages/change-notify.js';
import { createRequest, parseCloseResponse, parseCreateResponse } from '../../../src/smb/messages/create.js';
import { copyChunkWriteRequest, parseCopyChunkResponse, parseResumeKeyResponse, parseValidateNegotiateResponse } from '../../../src/smb/messages/ioctl.js';
import { negotiateRequest, parseNegotiateResponse } from '../../../src/smb/messages/negotiate.js';
import { LeaseState, leaseBreakAck, OplockLevel, oplockBreakAck, parseBreakNotice } from '../../../src/smb/messages/oplock.js';
import { parseOutputBuffer } from '../../../src/smb/messages/query.js';
import { normalizePath, toSmbPath } from '../../../src/smb/paths.js';
import { WireReader } from '../../../src/smb/wire.js';
import { breakNotice, closeResponse, copyChunkResponse, createResponse, createResponseWithLease, resumeKeyResponse, directoryEntries, negotiateResponse, notifyEntries, outputBufferResponse, securityDescriptor, validateNegotiateResponse } from './frames.js';

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
  assert.equal(n.signingAlgorithm, undefined, 'no signing context: the dialect\'s algorithm');
  assert.equal(parseNegotiateResponse(new WireReader(negotiateResponse(0n, 0x311, true, 2), 'test')).signingAlgorithm, 2);
  const out = parseOutputBuffer(new WireReader(outputBufferResponse(16, 2n, Buffer.from('abc')), 'test'), 'QUERY_INFO');
  assert.equal(out.toString(), 'abc');
  assert.equal(parseCloseResponse(new WireReader(closeResponse(3n), 'test')).endOfFile, 5);
  assert.equal(parseValidateNegotiateResponse(new WireReader(validateNegotiateResponse(4n), 'test')).dialect, 0x302);
});

test('NEGOTIATE offers 3.1.1\'s contexts: pre-authentication integrity, the ciphers and the signing algorithms, in order of preference', () => {
  const body = negotiateRequest([0x300, 0x311], Buffer.alloc(16), [2, 1], [2, 1]).body;
  const contexts = new Map<number, Buffer>();
  let at = body.readUInt32LE(28) - 64; // offsets count from the SMB2 header
  for (let i = 0; i < body.readUInt16LE(32); i++) {
    at += (8 - ((64 + at) % 8)) % 8;
    const length = body.readUInt16LE(at + 2);
    contexts.set(body.readUInt16LE(at), body.subarray(at + 8, at + 8 + length));
    at += 8 + length;
  }
  assert.deepEqual([...contexts.keys()], [1, 2, 8]);
  assert.deepEqual(contexts.get(2), Buffer.from([2, 0, 2, 0, 1, 0]), 'two ciphers: AES-128-GCM, then AES-128-CCM');
  assert.deepEqual(contexts.get(8), Buffer.from([2, 0, 2, 0, 1, 0]), 'two signing algorithms: AES-GMAC, then AES-CMAC');
  assert.equal(negotiateRequest([0x300], Buffer.alloc(16), [2, 1], [2, 1]).body.readUInt16LE(32), 0, 'no contexts without 3.1.1');
});

test('CREATE with SMB2_CREATE_SD_BUFFER: the context follows the name at an 8-byte boundary, named SecD, with the SD', () => {
  const sd = Buffer.from('0100049400000000000000000000000014000000020008000000000000', 'hex');
  const body = createRequest({ name: 'a\\b.tmp', desiredAccess: 1, disposition: 2, securityDescriptor: sd }).body;
  const at = body.readUInt32LE(48) - 64; // offsets count from the SMB2 header
  assert.equal(at % 8, 0);
  assert.ok(at >= 56 + 'a\\b.tmp'.length * 2);
  assert.equal(body.readUInt32LE(52), body.length - at, 'the context runs to the end of the request');
  const context = body.subarray(at);
  assert.equal(context.readUInt32LE(0), 0, 'the last context of its chain');
  assert.equal(context.subarray(context.readUInt16LE(4), context.readUInt16LE(4) + context.readUInt16LE(6)).toString('latin1'), 'SecD');
  const dataAt = context.readUInt16LE(10);
  assert.equal(dataAt % 8, 0);
  assert.deepEqual(context.subarray(dataAt, dataAt + context.readUInt32LE(12)), sd);
  assert.equal(createRequest({ name: 'x', desiredAccess: 1, disposition: 1 }).body.readUInt32LE(48), 0, 'no context, no offset');
});

test('CREATE with a lease after an SD: RequestedOplockLevel LEASE, the two contexts chained, the granted lease state read back', () => {
  const key = Buffer.alloc(16, 0x42);
  const sd = Buffer.alloc(20, 1);
  const body = createRequest({ name: 'f.txt', desiredAccess: 1, disposition: 1, securityDescriptor: sd, oplockLevel: OplockLevel.LEASE, lease: { key, state: LeaseState.READ | LeaseState.HANDLE } }).body;
  assert.equal(body.readUInt8(3), 0xff);
  const chain = body.subarray(body.readUInt32LE(48) - 64);
  const next = chain.readUInt32LE(0);
  assert.ok(next > 0 && next % 8 === 0, 'the SD context points at the next one, 8-byte aligned');
  const lease = chain.subarray(next);
  assert.equal(lease.readUInt32LE(0), 0, 'the lease context ends the chain');
  assert.equal(lease.subarray(lease.readUInt16LE(4), lease.readUInt16LE(4) + 4).toString('latin1'), 'RqLs');
  const data = lease.subarray(lease.readUInt16LE(10), lease.readUInt16LE(10) + lease.readUInt32LE(12));
  assert.deepEqual([data.length, data.subarray(0, 16), data.readUInt32LE(16)], [32, key, 3]);
  assert.equal(body.readUInt32LE(52), next + lease.length);
  const granted = parseCreateResponse(new WireReader(createResponseWithLease(7n, key, LeaseState.READ), 'test'));
  assert.deepEqual([granted.oplockLevel, granted.leaseState], [OplockLevel.LEASE, LeaseState.READ]);
  assert.deepEqual([parseCreateResponse(new WireReader(createResponse(7n), 'test')).leaseState], [undefined], 'no lease asked, none read');
});

test('OPLOCK_BREAK: the notices of an oplock and of a lease parse; the acknowledgments name the file or the lease', () => {
  const fileId = Buffer.alloc(16, 0x11);
  const key = Buffer.alloc(16, 0x42);
  assert.deepEqual(parseBreakNotice(new WireReader(breakNotice({ fileId, level: OplockLevel.II }), 'test')), { kind: 'oplock', fileId, level: OplockLevel.II });
  assert.deepEqual(parseBreakNotice(new WireReader(breakNotice({ key, from: 7, to: 3 }), 'test')), { kind: 'lease', key, from: 7, to: 3, ackRequired: true });
  const ack = oplockBreakAck(fileId, OplockLevel.II).body;
  assert.deepEqual([ack.readUInt16LE(0), ack.readUInt8(2), ack.subarray(8, 24)], [24, 1, fileId]);
  const leaseAck = leaseBreakAck(key, 3).body;
  assert.deepEqual([leaseAck.length, leaseAck.readUInt16LE(0), leaseAck.subarray(8, 24), leaseAck.readUInt32LE(24)], [36, 36, key, 3]);
});

test('server-side copy: the resume key and the chunks are laid out as SRV_COPYCHUNK_COPY; the answers parse', () => {
  const key = parseResumeKeyResponse(new WireReader(resumeKeyResponse(1n), 'test'));
  assert.deepEqual(key, Buffer.alloc(24, 0x5a));
  const req = copyChunkWriteRequest(Buffer.alloc(16, 0x11), key, [{ sourceOffset: 0, targetOffset: 0, length: 1_048_576 }, { sourceOffset: 1_048_576, targetOffset: 1_048_576, length: 451_424 }]);
  assert.equal(req.command, Command.IOCTL);
  assert.equal(req.body.readUInt32LE(4), 0x001480f2, 'FSCTL_SRV_COPYCHUNK_WRITE');
  assert.deepEqual(req.body.subarray(8, 24), Buffer.alloc(16, 0x11));
  const input = req.body.subarray(req.body.readUInt32LE(24) - 64, req.body.readUInt32LE(24) - 64 + req.body.readUInt32LE(28));
  assert.deepEqual(input.subarray(0, 24), key);
  assert.equal(input.readUInt32LE(24), 2);
  assert.deepEqual([input.readBigUInt64LE(56), input.readBigUInt64LE(64), input.readUInt32LE(72)], [1_048_576n, 1_048_576n, 451_424]);
  assert.equal(req.body.readUInt32LE(44), 12, 'room for SRV_COPYCHUNK_RESPONSE');
  assert.equal(parseCopyChunkResponse(new WireReader(copyChunkResponse(2n), 'test')), 1_500_000);
});

test('CHANGE_NOTIFY: the request carries flags, buffer size, FileId and filter; FILE_NOTIFY_INFORMATION chains parse', () => {
  const fileId = Buffer.alloc(16, 0x42);
  const req = changeNotifyRequest(fileId, FileNotifyChange.FILE_NAME | FileNotifyChange.SECURITY, true, 65536);
  assert.equal(req.command, Command.CHANGE_NOTIFY);
  assert.equal(req.body.length, 32);
  assert.equal(req.body.readUInt16LE(0), 32, 'StructureSize');
  assert.equal(req.body.readUInt16LE(2), 1, 'SMB2_WATCH_TREE');
  assert.equal(req.body.readUInt32LE(4), 65536);
  assert.deepEqual(req.body.subarray(8, 24), fileId);
  assert.equal(req.body.readUInt32LE(24), 0x101);
  assert.equal(req.payloadSize, 65536, 'charged by its output buffer');
  assert.equal(changeNotifyRequest(fileId, 1, false, 4096).body.readUInt16LE(2), 0);

  const entries = parseFileNotifyInformation(notifyEntries([
    [FileAction.RENAMED_OLD_NAME, 'Mathe\\.wiki\\alt.md'],
    [FileAction.RENAMED_NEW_NAME, 'Mathe\\.wiki\\neu.md'],
    [FileAction.ADDED, 'Schülerzeitung'],
  ]));
  assert.deepEqual(entries, [
    { action: 4, name: 'Mathe\\.wiki\\alt.md' },
    { action: 5, name: 'Mathe\\.wiki\\neu.md' },
    { action: 1, name: 'Schülerzeitung' },
  ]);
  const answer = parseOutputBuffer(new WireReader(outputBufferResponse(Command.CHANGE_NOTIFY, 9n, notifyEntries([[2, 'a']])), 'test'), 'CHANGE_NOTIFY');
  assert.deepEqual(parseFileNotifyInformation(answer), [{ action: FileAction.REMOVED, name: 'a' }]);
});

test('FILE_NOTIFY_INFORMATION: offsets that stand still, go back, are unaligned or leave the buffer are PROTOCOL_ERROR', () => {
  const chain = (): Buffer => notifyEntries([[1, 'abc'], [2, 'de']]);
  const cases: [string, (b: Buffer) => void][] = [
    ['NextEntryOffset pointing at its own header', (b) => b.writeUInt32LE(4, 0)],
    ['NextEntryOffset not on a 4-byte boundary', (b) => b.writeUInt32LE(13, 0)],
    ['NextEntryOffset past the end', (b) => b.writeUInt32LE(1 << 20, 0)],
    ['FileNameLength past the end', (b) => b.writeUInt32LE(0xfffffff0, 8)],
    ['FileNameLength odd', (b) => b.writeUInt32LE(5, 8)],
  ];
  for (const [label, corrupt] of cases) {
    const b = chain();
    corrupt(b);
    assert.throws(() => parseFileNotifyInformation(b), { code: 'PROTOCOL_ERROR' }, label);
  }
  assert.throws(() => parseFileNotifyInformation(Buffer.alloc(8)), { code: 'PROTOCOL_ERROR' }, 'shorter than one header');
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

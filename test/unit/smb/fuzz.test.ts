import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SmbError } from '../../../src/smb/errors.js';
import { parseHeader, parseTransform, splitCompound } from '../../../src/smb/header.js';
import { parseCloseResponse, parseCreateResponse } from '../../../src/smb/messages/create.js';
import { parseCopyChunkResponse, parseResumeKeyResponse, parseValidateNegotiateResponse } from '../../../src/smb/messages/ioctl.js';
import { parseNegotiateResponse } from '../../../src/smb/messages/negotiate.js';
import { parseBreakNotice } from '../../../src/smb/messages/oplock.js';
import { parseOutputBuffer } from '../../../src/smb/messages/query.js';
import { parseReadResponse, parseWriteResponse } from '../../../src/smb/messages/read-write.js';
import { parseSessionSetupResponse, parseTreeConnectResponse } from '../../../src/smb/messages/session.js';
import { parseAllInfo, parseFileNotifyInformation, parseIdFullDirectoryInfo } from '../../../src/smb/fscc.js';
import { encodeSecurityDescriptor, parseSecurityDescriptor } from '../../../src/smb/security-descriptor.js';
import { SdControl } from '../../../src/windows-security/access-control.js';
import { parseChallenge } from '../../../src/smb/ntlm.js';
import { FrameDecoder } from '../../../src/smb/transport.js';
import { WireReader } from '../../../src/smb/wire.js';
import {
  closeResponse,
  copyChunkResponse,
  createResponse,
  createResponseWithLease,
  breakNotice,
  directoryEntries,
  negotiateResponse,
  notifyEntries,
  outputBufferResponse,
  mutate,
  prng,
  readResponse,
  resumeKeyResponse,
  sambaSecurityDescriptors,
  securityDescriptor,
  validateNegotiateResponse,
} from './frames.js';

const messageParsers: ((r: WireReader) => unknown)[] = [
  parseHeader,
  parseNegotiateResponse,
  parseSessionSetupResponse,
  parseTreeConnectResponse,
  parseCreateResponse,
  parseReadResponse,
  parseWriteResponse,
  parseCloseResponse,
  parseValidateNegotiateResponse,
  parseResumeKeyResponse,
  parseCopyChunkResponse,
  (r) => parseOutputBuffer(r, 'fuzz'),
  parseBreakNotice,
];
const bufferParsers: ((b: Buffer) => unknown)[] = [
  splitCompound,
  parseTransform,
  parseIdFullDirectoryInfo,
  parseFileNotifyInformation,
  (b) => parseAllInfo(new WireReader(b, 'fuzz')),
  parseSecurityDescriptor,
  parseChallenge,
];

const seeds: Buffer[] = [
  negotiateResponse(0n),
  createResponse(3n),
  createResponseWithLease(3n, Buffer.alloc(16, 0x42), 7),
  breakNotice({ key: Buffer.alloc(16, 0x42), from: 7, to: 3 }),
  breakNotice({ fileId: Buffer.alloc(16, 0x11), level: 1 }),
  closeResponse(7n),
  validateNegotiateResponse(8n),
  resumeKeyResponse(9n),
  copyChunkResponse(10n),
  readResponse(4n, Buffer.from('payload')),
  outputBufferResponse(14, 5n, directoryEntries(['a.txt', 'ordner', 'ü.md'])),
  outputBufferResponse(16, 6n, securityDescriptor()),
  directoryEntries(['x', 'yy']),
  notifyEntries([[1, 'Mathe\\.wiki\\a.md'], [4, 'b'], [5, 'c.md']]),
  outputBufferResponse(15, 7n, notifyEntries([[3, 'Fachschaften']])),
  securityDescriptor(),
  Buffer.concat([Buffer.from('NTLMSSP\0', 'latin1'), Buffer.from([2, 0, 0, 0]), Buffer.alloc(40)]),
  Buffer.from([0xa1, 0x10, 0x30, 0x0e, 0xa0, 0x03, 0x0a, 0x01, 0x01, 0xa2, 0x07, 0x04, 0x05, 1, 2, 3, 4, 5]),
];

function expectOnlySmbErrors(fn: () => unknown, input: Buffer): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof SmbError)) {
      assert.fail(`non-SMB error ${String(err)} for input ${input.toString('hex').slice(0, 200)}`);
    }
  }
}

test('parsers survive 20,000 random and mutated frames with only SmbErrors', () => {
  const rnd = prng(0x5eed);
  // A parser that loops forever is caught by the runner's test timeout, not by a clock here (the host may be busy).
  for (let i = 0; i < 20_000; i++) {
    const input = mutate(seeds[i % seeds.length]!, rnd);
    for (const p of messageParsers) expectOnlySmbErrors(() => p(new WireReader(input, 'fuzz')), input);
    for (const p of bufferParsers) expectOnlySmbErrors(() => p(input), input);
  }
});

test('every security descriptor that parses encodes, and parses back to the same descriptor', () => {
  const rnd = prng(0x5d);
  const sdSeeds = [securityDescriptor(), ...Object.values(sambaSecurityDescriptors)];
  let parsed = 0;
  for (let i = 0; i < 20_000; i++) {
    const input = mutate(sdSeeds[i % sdSeeds.length]!, rnd);
    let sd;
    try {
      sd = parseSecurityDescriptor(input);
    } catch (err) {
      assert.ok(err instanceof SmbError, String(err));
      continue;
    }
    parsed++;
    const again = parseSecurityDescriptor(encodeSecurityDescriptor(sd));
    assert.deepEqual(again, { ...sd, control: sd.control | SdControl.SELF_RELATIVE }, input.toString('hex'));
  }
  assert.ok(parsed > 2_000, `only ${parsed} mutated descriptors parsed`);
});

test('the frame decoder handles random byte streams in random chunks without hanging', () => {
  const rnd = prng(42);
  for (let i = 0; i < 2_000; i++) {
    const decoder = new FrameDecoder();
    const stream = mutate(Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.alloc(8), Buffer.from([0, 0, 1, 0])]), rnd);
    let offset = 0;
    try {
      while (offset < stream.length) {
        const n = 1 + Math.floor(rnd() * 16);
        for (const f of decoder.push(stream.subarray(offset, offset + n))) assert.ok(f.length >= 4);
        offset += n;
      }
    } catch (err) {
      assert.ok(err instanceof SmbError, String(err));
    }
  }
});

test('the frame decoder reassembles frames split at every byte boundary', () => {
  const frames = [Buffer.alloc(70, 1), Buffer.alloc(5, 2), Buffer.alloc(300, 3)];
  const stream = Buffer.concat(frames.flatMap((f) => [Buffer.from([0, 0, f.length >> 8, f.length & 0xff]), f]));
  for (let chunk = 1; chunk <= 40; chunk++) {
    const decoder = new FrameDecoder();
    const out: Buffer[] = [];
    for (let o = 0; o < stream.length; o += chunk) out.push(...decoder.push(stream.subarray(o, o + chunk)));
    assert.deepEqual(out, frames);
  }
  assert.throws(() => new FrameDecoder().push(Buffer.from([0x85, 0, 0, 0])), { code: 'PROTOCOL_ERROR' });
  const limited = new FrameDecoder();
  limited.maxFrameSize = 1000;
  assert.throws(() => limited.push(Buffer.from([0, 0, 0x03, 0xe9])), { code: 'PROTOCOL_ERROR' }, 'oversized before buffering');
});

/**
 * NTLMv2 client side (MS-NLMP): NEGOTIATE, CHALLENGE parsing and AUTHENTICATE with the NTLMv2 response.
 * The exported session key is the SessionBaseKey (no key exchange: RC4 is not available in OpenSSL 3).
 */
import { createHmac, randomBytes } from 'node:crypto';
import md4 from 'js-md4';
import { SmbProtocolError } from './errors.js';
import { WireReader, utf16 } from './wire.js';

export const NtlmFlags = {
  UNICODE: 0x00000001,
  REQUEST_TARGET: 0x00000004,
  SIGN: 0x00000010,
  NTLM: 0x00000200,
  ALWAYS_SIGN: 0x00008000,
  EXTENDED_SESSIONSECURITY: 0x00080000,
  TARGET_INFO: 0x00800000,
  VERSION: 0x02000000,
  N128: 0x20000000,
  KEY_EXCH: 0x40000000,
  N56: 0x80000000,
} as const;

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');
const CLIENT_FLAGS =
  NtlmFlags.UNICODE |
  NtlmFlags.REQUEST_TARGET |
  NtlmFlags.SIGN |
  NtlmFlags.NTLM |
  NtlmFlags.ALWAYS_SIGN |
  NtlmFlags.EXTENDED_SESSIONSECURITY |
  NtlmFlags.TARGET_INFO |
  NtlmFlags.N128 |
  NtlmFlags.N56;

const AV_EOL = 0;
const AV_TIMESTAMP = 7;

const hmacMd5 = (key: Buffer, ...data: Buffer[]): Buffer => {
  const h = createHmac('md5', key);
  for (const d of data) h.update(d);
  return h.digest();
};

export function ntowfV2(password: string, user: string, domain: string): Buffer {
  const ntHash = Buffer.from(md4.arrayBuffer(utf16(password)));
  return hmacMd5(ntHash, utf16(user.toUpperCase() + domain));
}

export function negotiateMessage(): Buffer {
  const m = Buffer.alloc(32);
  SIGNATURE.copy(m, 0);
  m.writeUInt32LE(1, 8);
  m.writeUInt32LE(CLIENT_FLAGS >>> 0, 12);
  // Domain and workstation fields stay empty (offsets point at the end).
  m.writeUInt32LE(32, 20);
  m.writeUInt32LE(32, 28);
  return m;
}

export interface NtlmChallenge {
  flags: number;
  serverChallenge: Buffer;
  targetInfo: Buffer;
  /** MsvAvTimestamp from the target info, if the server sent one. */
  timestamp: Buffer | null;
}

function field(r: WireReader, offset: number, what: string): Buffer {
  const len = r.u16(offset);
  const off = r.u32(offset + 4);
  if (len === 0) return Buffer.alloc(0);
  return Buffer.from(r.sub(off, len, `NTLM ${what}`).buf);
}

export function parseChallenge(msg: Buffer): NtlmChallenge {
  const r = new WireReader(msg, 'NTLM CHALLENGE message');
  if (!r.bytes(0, 8).equals(SIGNATURE) || r.u32(8) !== 2) throw new SmbProtocolError('not an NTLM CHALLENGE message');
  const flags = r.u32(20);
  const targetInfo = field(r, 40, 'target info');
  let timestamp: Buffer | null = null;
  const ti = new WireReader(targetInfo, 'NTLM target info');
  for (let off = 0; off + 4 <= ti.length; ) {
    const id = ti.u16(off);
    const len = ti.u16(off + 2);
    if (id === AV_EOL) break;
    const value = ti.bytes(off + 4, len);
    if (id === AV_TIMESTAMP && len === 8) timestamp = Buffer.from(value);
    off += 4 + len;
  }
  return { flags, serverChallenge: Buffer.from(r.bytes(24, 8)), targetInfo, timestamp };
}

export interface NtlmV2Response {
  ntChallengeResponse: Buffer;
  lmChallengeResponse: Buffer;
  sessionBaseKey: Buffer;
}

/** MS-NLMP 3.3.2: the NTLMv2 responses and session base key. */
export function ntlmV2Response(
  responseKey: Buffer,
  serverChallenge: Buffer,
  clientChallenge: Buffer,
  time: Buffer,
  targetInfo: Buffer,
  withLmResponse: boolean,
): NtlmV2Response {
  const temp = Buffer.concat([
    Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]),
    time,
    clientChallenge,
    Buffer.alloc(4),
    targetInfo,
    Buffer.alloc(4),
  ]);
  const ntProofStr = hmacMd5(responseKey, serverChallenge, temp);
  return {
    ntChallengeResponse: Buffer.concat([ntProofStr, temp]),
    lmChallengeResponse: withLmResponse
      ? Buffer.concat([hmacMd5(responseKey, serverChallenge, clientChallenge), clientChallenge])
      : Buffer.alloc(24),
    sessionBaseKey: hmacMd5(responseKey, ntProofStr),
  };
}

export interface NtlmCredentials {
  domain: string;
  user: string;
  password: string;
  workstation?: string;
}

function nowFiletime(): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE((BigInt(Date.now()) + 11644473600000n) * 10000n);
  return b;
}

export function authenticateMessage(challenge: NtlmChallenge, creds: NtlmCredentials): { message: Buffer; sessionKey: Buffer } {
  const responseKey = ntowfV2(creds.password, creds.user, creds.domain);
  const resp = ntlmV2Response(
    responseKey,
    challenge.serverChallenge,
    randomBytes(8),
    challenge.timestamp ?? nowFiletime(),
    challenge.targetInfo,
    challenge.timestamp === null,
  );
  const domain = utf16(creds.domain);
  const user = utf16(creds.user);
  const workstation = utf16(creds.workstation ?? '');
  const payloads = [resp.lmChallengeResponse, resp.ntChallengeResponse, domain, user, workstation, Buffer.alloc(0)];
  const headerSize = 64;
  const m = Buffer.alloc(headerSize + payloads.reduce((n, p) => n + p.length, 0));
  SIGNATURE.copy(m, 0);
  m.writeUInt32LE(3, 8);
  let offset = headerSize;
  payloads.forEach((p, i) => {
    const at = 12 + i * 8;
    m.writeUInt16LE(p.length, at);
    m.writeUInt16LE(p.length, at + 2);
    m.writeUInt32LE(offset, at + 4);
    p.copy(m, offset);
    offset += p.length;
  });
  m.writeUInt32LE((challenge.flags & CLIENT_FLAGS) >>> 0, 60);
  return { message: m, sessionKey: resp.sessionBaseKey };
}

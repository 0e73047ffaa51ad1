/**
 * NTLMv2 client side (MS-NLMP): NEGOTIATE, CHALLENGE parsing and AUTHENTICATE with the NTLMv2 response.
 * The exported session key is the SessionBaseKey (no key exchange: RC4 is not available in OpenSSL 3).
 * AUTHENTICATE carries a MIC (MS-NLMP 3.1.5.1.2) over all three messages, announced by MsvAvFlags in the
 * target info the NTLMv2 response signs, so that a man in the middle can neither alter the negotiated flags
 * nor strip the MIC.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import md4 from 'js-md4';
import { SmbProtocolError } from './errors.js';
import { WireReader, utf16 } from './wire.js';

const NtlmFlags = {
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

const AvId = { EOL: 0, FLAGS: 6, TIMESTAMP: 7 } as const;
/** MsvAvFlags bit: the AUTHENTICATE message carries a MIC. */
const AV_FLAG_MIC = 0x2;
/** AUTHENTICATE: the fixed part (fields, flags, Version) is followed by the 16-byte MIC, then the payload. */
const MIC_OFFSET = 72;
const AUTHENTICATE_HEADER_SIZE = MIC_OFFSET + 16;

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

interface AvPair {
  id: number;
  value: Buffer;
}

interface NtlmChallenge {
  /** The whole CHALLENGE message, which the MIC covers. */
  message: Buffer;
  flags: number;
  serverChallenge: Buffer;
  /** The target info's AV pairs, without the terminating MsvAvEOL. */
  targetInfo: AvPair[];
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
  const targetInfo = readAvPairs(field(r, 40, 'target info'));
  const timestamp = targetInfo.find((p) => p.id === AvId.TIMESTAMP && p.value.length === 8)?.value ?? null;
  return { message: Buffer.from(msg), flags: r.u32(20), serverChallenge: Buffer.from(r.bytes(24, 8)), targetInfo, timestamp };
}

function readAvPairs(targetInfo: Buffer): AvPair[] {
  const pairs: AvPair[] = [];
  const ti = new WireReader(targetInfo, 'NTLM target info');
  for (let off = 0; off + 4 <= ti.length; ) {
    const id = ti.u16(off);
    const len = ti.u16(off + 2);
    if (id === AvId.EOL) break;
    pairs.push({ id, value: Buffer.from(ti.bytes(off + 4, len)) });
    off += 4 + len;
  }
  return pairs;
}

function writeAvPairs(pairs: readonly AvPair[]): Buffer {
  const parts = [...pairs, { id: AvId.EOL, value: Buffer.alloc(0) }].map(({ id, value }) => {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(id, 0);
    head.writeUInt16LE(value.length, 2);
    return Buffer.concat([head, value]);
  });
  return Buffer.concat(parts);
}

/** The server's target info with MsvAvFlags announcing the MIC (MS-NLMP 3.1.5.1.2). */
function clientTargetInfo(server: readonly AvPair[]): Buffer {
  const serverFlags = server.find((p) => p.id === AvId.FLAGS && p.value.length === 4)?.value.readUInt32LE(0) ?? 0;
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE((serverFlags | AV_FLAG_MIC) >>> 0);
  return writeAvPairs([...server.filter((p) => p.id !== AvId.FLAGS), { id: AvId.FLAGS, value: flags }]);
}

interface NtlmV2Response {
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

/** AUTHENTICATE for `challenge`, the answer to `negotiate` (the NEGOTIATE message as sent), with its MIC. */
export function authenticateMessage(
  negotiate: Buffer,
  challenge: NtlmChallenge,
  creds: NtlmCredentials,
): { message: Buffer; sessionKey: Buffer } {
  const responseKey = ntowfV2(creds.password, creds.user, creds.domain);
  // With a server timestamp the LMv2 response is left empty (MS-NLMP 3.1.5.1.2) and the MIC protects the rest.
  const resp = ntlmV2Response(
    responseKey,
    challenge.serverChallenge,
    randomBytes(8),
    challenge.timestamp ?? nowFiletime(),
    clientTargetInfo(challenge.targetInfo),
    challenge.timestamp === null,
  );
  const domain = utf16(creds.domain);
  const user = utf16(creds.user);
  const workstation = utf16(creds.workstation ?? '');
  const payloads = [resp.lmChallengeResponse, resp.ntChallengeResponse, domain, user, workstation, Buffer.alloc(0)];
  const m = Buffer.alloc(AUTHENTICATE_HEADER_SIZE + payloads.reduce((n, p) => n + p.length, 0));
  SIGNATURE.copy(m, 0);
  m.writeUInt32LE(3, 8);
  let offset = AUTHENTICATE_HEADER_SIZE;
  payloads.forEach((p, i) => {
    const at = 12 + i * 8;
    m.writeUInt16LE(p.length, at);
    m.writeUInt16LE(p.length, at + 2);
    m.writeUInt32LE(offset, at + 4);
    p.copy(m, offset);
    offset += p.length;
  });
  m.writeUInt32LE((challenge.flags & CLIENT_FLAGS) >>> 0, 60);
  // Version (64..72) stays zero: NTLMSSP_NEGOTIATE_VERSION is not negotiated.
  hmacMd5(resp.sessionBaseKey, negotiate, challenge.message, m).copy(m, MIC_OFFSET);
  return { message: m, sessionKey: resp.sessionBaseKey };
}

/** Which side signs: the keys differ per direction (MS-NLMP 3.4.5.2). */
type NtlmDirection = 'client-to-server' | 'server-to-client';

/**
 * NTLM GSS_GetMIC of the first message in `direction` (sequence number 0), with extended session security and
 * without key exchange, so the checksum is not RC4-sealed (MS-NLMP 3.4.4.2). SPNEGO uses it for the
 * mechListMIC, which the server demands once the AUTHENTICATE message carries a MIC.
 */
export function ntlmMic(exportedSessionKey: Buffer, direction: NtlmDirection, message: Buffer): Buffer {
  const signingKey = createHash('md5')
    .update(exportedSessionKey)
    .update(Buffer.from(`session key to ${direction} signing key magic constant\0`, 'latin1'))
    .digest();
  const seqNum = Buffer.alloc(4);
  const checksum = hmacMd5(signingKey, seqNum, message).subarray(0, 8);
  return Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, seqNum]);
}

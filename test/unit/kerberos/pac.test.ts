// The PAC reader (src/kerberos/pac.ts) on hand-built PACs (pac-frames.ts): what it reads, and that malformed or
// hostile ones end in PAC_INVALID, never another error or a large allocation. A real PAC of the testbed's KDC is
// read in test/integration/kerberos/pac.test.ts (its signature needs the service key, so it is no fixture here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aes256Sha1, randomKey } from '../../../src/kerberos/crypto.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { parseAuthorizationData, type EncTicketPart } from '../../../src/kerberos/messages.js';
import { ticketPacIdentity } from '../../../src/kerberos/pac.js';
import { mutate, prng } from '../smb/frames.js';
import { clientInfo, logonInfo, pacAuthorizationData, pacOf, signatureAt, signedPac, type PacSpec } from './pac-frames.js';

const key = randomKey(18);
const authtime = new Date('2026-11-29T02:29:41Z');
const spec: PacSpec = {
  domainSid: 'S-1-5-21-2992803617-2923775162-855966019', userRid: 1110, groupRids: [513, 1105], extraSids: ['S-1-18-1', 'S-1-5-21-7-8-9-1000'],
  account: 'carla', clientName: 'carla', authtime, serviceKey: key.value,
};

/** The enc-part of a ticket of carla carrying these authorization-data entries. */
function part(authorizationData: EncTicketPart['authorizationData']): EncTicketPart {
  return { flags: 0, key, crealm: 'EDU.TEST', cname: { type: 1, names: ['carla'] }, authtime, endtime: new Date(authtime.getTime() + 3600_000), authorizationData };
}

/** A ticket's enc-part carrying `pacs` as AD-WIN2K-PAC in AD-IF-RELEVANT, read from the DER as the acceptor reads it. */
const withPac = (...pacs: Buffer[]): EncTicketPart => part(parseAuthorizationData(pacAuthorizationData(...pacs)));

const refused = (text?: RegExp) => (e: unknown) => e instanceof KerberosError && e.code === 'PAC_INVALID' && (!text || text.test(e.message));

/** `pac` with its server signature made anew, so that a test reaches what lies behind the signature. */
function resigned(pac: Buffer): Buffer {
  const out = Buffer.from(pac);
  const server = signatureAt(out, 6);
  const kdc = signatureAt(out, 7);
  out.fill(0, server, server + 12);
  const kdcSig = Buffer.from(out.subarray(kdc, kdc + 12));
  out.fill(0, kdc, kdc + 12);
  aes256Sha1.checksum(key.value, 17, out).copy(out, server);
  kdcSig.copy(out, kdc);
  return out;
}

/** A PAC of these buffers with placeholder signatures, signed with the service key. */
function signed(buffers: [number, Buffer][]): Buffer {
  const sig = () => Buffer.concat([Buffer.from([16, 0, 0, 0]), Buffer.alloc(12)]);
  return resigned(pacOf([...buffers, [6, sig()], [7, sig()]]));
}

test('reads the SID, the groups and the account name of a PAC whose server signature verifies', () => {
  assert.deepEqual(ticketPacIdentity(withPac(signedPac(spec)), key), {
    userSid: `${spec.domainSid}-1110`,
    groupSids: [`${spec.domainSid}-513`, `${spec.domainSid}-1105`, 'S-1-18-1', 'S-1-5-21-7-8-9-1000'],
    account: 'carla',
  });
});

test('refuses a ticket with no PAC, or two', () => {
  assert.throws(() => ticketPacIdentity(part([]), key), refused(/carries none/));
  assert.throws(() => ticketPacIdentity(part([{ type: 128, data: signedPac(spec) }]), key), refused(/carries none/), 'a PAC outside AD-IF-RELEVANT is not the KDC\'s');
  assert.throws(() => ticketPacIdentity(withPac(signedPac(spec), signedPac(spec)), key), refused(/carries 2/));
});

test('refuses a PAC altered after signing, signed with another key or type, or of an unknown signature type', () => {
  const pac = signedPac(spec);
  const altered = Buffer.from(pac);
  altered[100]! ^= 1; // in the logon information
  assert.throws(() => ticketPacIdentity(withPac(altered), key), refused(/server signature does not verify/));
  assert.throws(() => ticketPacIdentity(withPac(pac), randomKey(18)), refused(/server signature does not verify/));
  assert.throws(() => ticketPacIdentity(withPac(pac), randomKey(17)), refused(/type 16, and the service key \(aes128-cts-hmac-sha1-96\) signs with type 15/));
  const unknown = Buffer.from(pac);
  unknown.writeInt32LE(-1, signatureAt(unknown, 7) - 4);
  assert.throws(() => ticketPacIdentity(withPac(unknown), key), refused(/type -1, which this service does not know/));
});

test('refuses a PAC whose client information is not the ticket\'s client and logon time', () => {
  assert.throws(() => ticketPacIdentity(withPac(signedPac({ ...spec, clientName: 'dora' })), key), refused(/names dora, the ticket carla/));
  assert.throws(() => ticketPacIdentity(withPac(signedPac({ ...spec, authtime: new Date(authtime.getTime() + 1000) })), key), refused(/authtime/));
});

test('refuses malformed PACTYPE headers: counts, offsets and sizes outside the PAC, misaligned, missing or doubled buffers', () => {
  const pac = signedPac(spec);
  /** `pac` with an edit at `at`, signed anew where the signatures can still be found. */
  const edit = (at: number, write: (b: Buffer) => void) => {
    const b = Buffer.from(pac);
    write(b.subarray(at));
    try {
      return withPac(resigned(b));
    } catch {
      return withPac(b);
    }
  };
  assert.throws(() => ticketPacIdentity(withPac(Buffer.alloc(4)), key), refused(/too short/));
  assert.throws(() => ticketPacIdentity(edit(0, (b) => b.writeUInt32LE(0xffffffff)), key), refused(/4294967295 buffers do not fit/));
  assert.throws(() => ticketPacIdentity(edit(4, (b) => b.writeUInt32LE(1)), key), refused(/version 1/));
  assert.throws(() => ticketPacIdentity(edit(12, (b) => b.writeUInt32LE(0xfffffff0)), key), refused(/lies outside/));
  assert.throws(() => ticketPacIdentity(edit(16, (b) => b.writeBigUInt64LE(2n ** 63n)), key), refused(/lies outside/));
  assert.throws(() => ticketPacIdentity(edit(16, (b) => b.writeBigUInt64LE(BigInt(pac.readBigUInt64LE(16) + 4n))), key), refused(/misaligned/));
  assert.throws(() => ticketPacIdentity(edit(8, (b) => b.writeUInt32LE(99)), key), refused(/no PAC_LOGON_INFO buffer/));
  assert.throws(() => ticketPacIdentity(edit(8, (b) => b.writeUInt32LE(10)), key), refused(/2 PAC_CLIENT_INFO buffers/));
});

test('refuses malformed logon information: NDR header, lengths, counts and SIDs that do not fit, without allocating for them', () => {
  const info = logonInfo(spec);
  const pacWith = (logon: Buffer) => withPac(signed([[1, logon], [10, clientInfo('carla', authtime)]]));
  assert.deepEqual(ticketPacIdentity(pacWith(info), key).userSid, `${spec.domainSid}-1110`, 'the builder\'s PAC is read');
  const edited = (at: number, write: (b: Buffer) => void) => {
    const b = Buffer.from(info);
    write(b.subarray(at));
    return pacWith(b);
  };
  assert.throws(() => ticketPacIdentity(edited(1, (b) => (b[0] = 0)), key), refused(/not little-endian NDR/));
  assert.throws(() => ticketPacIdentity(edited(8, (b) => b.writeUInt32LE(0x7fffffff)), key), refused(/exceeds/));
  assert.throws(() => ticketPacIdentity(edited(16, (b) => b.writeUInt32LE(0)), key), refused(/no KERB_VALIDATION_INFO/));
  // GroupCount (at 16 + 4 + 108) a billion, and the array's conformance saying so too: refused before any loop.
  const groupCount = 16 + 4 + 108;
  assert.throws(() => ticketPacIdentity(edited(groupCount, (b) => b.writeUInt32LE(1e9)), key), refused(/sends 2 elements of an array of 1000000000/));
  // EffectiveName's Length (at 16 + 4 + 48) beyond its MaximumLength, and beyond the buffer.
  assert.throws(() => ticketPacIdentity(edited(16 + 4 + 48, (b) => b.writeUInt16LE(0xfffe)), key), refused(/string of 65534 bytes/));
  assert.throws(() => ticketPacIdentity(pacWith(info.subarray(0, 16 + 150)), key), refused(/exceeds|ends at byte/));
  assert.throws(() => ticketPacIdentity(pacWith(logonInfo({ ...spec, domainSid: 'S-1-5-21-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16' })), key), refused(/malformed SID: a SID has at most 15 sub-authorities, this one announces 17/));
  assert.throws(() => ticketPacIdentity(pacWith(logonInfo({ ...spec, account: '' })), key), refused(/names no account/));
  assert.throws(() => ticketPacIdentity(withPac(signed([[10, clientInfo('carla', authtime)]])), key), refused(/no PAC_LOGON_INFO/));
  assert.throws(() => ticketPacIdentity(withPac(signed([[1, info]])), key), refused(/no PAC_CLIENT_INFO/));
});

test('5,000 mutated PACs (their signatures made anew, so the parser behind them is reached) give only PAC_INVALID or an identity', () => {
  const seeds = [signedPac(spec), signedPac({ ...spec, groupRids: [], extraSids: [] })];
  const rnd = prng(0x9ac);
  let read = 0;
  for (let i = 0; i < 5_000; i++) {
    const mutated = mutate(seeds[i % seeds.length]!, rnd);
    let pac: Buffer;
    try {
      pac = resigned(mutated);
    } catch {
      pac = mutated; // the mutation broke the buffer table itself: the reader refuses it before the signature
    }
    try {
      ticketPacIdentity(withPac(pac), key);
      read++;
    } catch (err) {
      if (!(err instanceof KerberosError && err.code === 'PAC_INVALID')) assert.fail(`${String(err)} for ${pac.toString('hex').slice(0, 200)}`);
    }
  }
  assert.ok(read > 100, `only ${read} mutated PACs were read`);
});

/**
 * Windows security identifiers (MS-DTYP 2.4.2): the one codec between the binary form (LDAP's `objectSid` and
 * `tokenGroups`, the owner, group and trustees of an SMB security descriptor, the RPC_SIDs of a Kerberos PAC) and
 * the string form `S-1-5-21-…` used in ACLs, the search index and every cache keyed by a user.
 * Binary layout: revision (1 byte, always 1), sub-authority count (1 byte, at most 15), identifier authority
 * (6 bytes, big-endian), then each sub-authority as 4 bytes little-endian.
 * A malformed SID is a SidFormatError; each caller turns it into its own protocol's error (inProtocol).
 */
export class SidFormatError extends Error {
  override readonly name = 'SidFormatError';
}

/** What `code` returns, its SidFormatError made the error of the caller's protocol by `asError`. */
export function inProtocol<T>(code: () => T, asError: (message: string) => Error): T {
  try {
    return code();
  } catch (error) {
    if (!(error instanceof SidFormatError)) throw error;
    throw asError(error.message);
  }
}

/** MS-DTYP 2.4.2: SubAuthorityCount is at most 15. */
export const MAX_SUB_AUTHORITIES = 15;

/** Revision, count and identifier authority. */
const FIXED_SIZE = 8;

/**
 * The SID that starts at `at` in `bytes` (a security descriptor, an ACE, an NDR stream), and how many bytes it takes:
 * the structures around it say where it starts, only its own count says where it ends.
 */
export function readSid(bytes: Uint8Array, at = 0): { sid: string; size: number } {
  if (!Number.isInteger(at) || at < 0 || at + FIXED_SIZE > bytes.length) {
    throw new SidFormatError(`a SID needs at least ${FIXED_SIZE} bytes at offset ${at}, the data has ${bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const revision = view.getUint8(at);
  const count = view.getUint8(at + 1);
  if (revision !== 1) throw new SidFormatError(`unsupported SID revision ${revision}`);
  if (count > MAX_SUB_AUTHORITIES) throw new SidFormatError(`a SID has at most ${MAX_SUB_AUTHORITIES} sub-authorities, this one announces ${count}`);
  const size = FIXED_SIZE + 4 * count;
  if (at + size > bytes.length) {
    throw new SidFormatError(`SID with ${count} sub-authorities must be ${size} bytes, only ${bytes.length - at} are there`);
  }
  const authority = view.getUint16(at + 2) * 2 ** 32 + view.getUint32(at + 4);
  const parts = [`S-${revision}-${authority}`];
  for (let i = 0; i < count; i++) parts.push(String(view.getUint32(at + FIXED_SIZE + 4 * i, true)));
  return { sid: parts.join('-'), size };
}

/** A value that is one SID and nothing else (an `objectSid`, one value of `tokenGroups`). */
export function decodeSid(bytes: Uint8Array): string {
  const { sid, size } = readSid(bytes);
  if (size !== bytes.length) throw new SidFormatError(`SID ${sid} must be ${size} bytes, got ${bytes.length}`);
  return sid;
}

export function encodeSid(sid: string): Buffer {
  const match = /^S-1-(\d+)((?:-\d+)*)$/i.exec(sid);
  if (match === null) throw new SidFormatError(`'${sid}' is not a SID of the form S-1-<authority>-<sub-authority>…`);
  const authority = Number(match[1]);
  const subAuthorities = match[2]!.split('-').slice(1).map(Number);
  if (!Number.isSafeInteger(authority) || authority >= 2 ** 48) {
    throw new SidFormatError(`identifier authority of '${sid}' is out of range`);
  }
  if (subAuthorities.length > MAX_SUB_AUTHORITIES || subAuthorities.some((n) => n > 0xffffffff)) {
    throw new SidFormatError(`sub-authorities of '${sid}' are too many or out of range`);
  }
  const bytes = Buffer.alloc(FIXED_SIZE + 4 * subAuthorities.length);
  bytes.writeUInt8(1, 0);
  bytes.writeUInt8(subAuthorities.length, 1);
  bytes.writeUIntBE(authority, 2, 6);
  subAuthorities.forEach((n, i) => bytes.writeUInt32LE(n, FIXED_SIZE + 4 * i));
  return bytes;
}

/**
 * Windows security identifiers: the binary form of `objectSid` / `tokenGroups` and the string
 * form `S-1-5-21-…` used in ACLs and in the search index.
 * Binary layout: revision (1 byte), sub-authority count (1 byte), identifier authority
 * (6 bytes, big-endian), then each sub-authority as 4 bytes little-endian.
 */
export class SidFormatError extends Error {
  override readonly name = 'SidFormatError';
}

const MAX_SUB_AUTHORITIES = 15;

export function decodeSid(bytes: Uint8Array): string {
  if (bytes.length < 8) throw new SidFormatError(`SID must be at least 8 bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const revision = view.getUint8(0);
  const count = view.getUint8(1);
  if (revision !== 1) throw new SidFormatError(`unsupported SID revision ${revision}`);
  if (count > MAX_SUB_AUTHORITIES || bytes.length !== 8 + 4 * count) {
    throw new SidFormatError(`SID with ${count} sub-authorities must be ${8 + 4 * count} bytes, got ${bytes.length}`);
  }
  const authority = view.getUint16(2) * 2 ** 32 + view.getUint32(4);
  const parts = [`S-${revision}-${authority}`];
  for (let i = 0; i < count; i++) parts.push(String(view.getUint32(8 + 4 * i, true)));
  return parts.join('-');
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
  const bytes = Buffer.alloc(8 + 4 * subAuthorities.length);
  bytes.writeUInt8(1, 0);
  bytes.writeUInt8(subAuthorities.length, 1);
  bytes.writeUIntBE(authority, 2, 6);
  subAuthorities.forEach((n, i) => bytes.writeUInt32LE(n, 8 + 4 * i));
  return bytes;
}

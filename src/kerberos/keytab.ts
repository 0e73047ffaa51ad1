/**
 * MIT keytab files (format version 0x502, as `ktutil`, `samba-tool domain exportkeytab` and `ktpass` write them):
 * a list of entries, each a principal, a key version and a key. Only the keys of the newest version of a
 * principal are used: after a password change the file may still hold the old ones.
 */
import { KerberosError } from './errors.js';
import type { EncryptionKey } from './crypto.js';

export interface KeytabEntry {
  realm: string;
  names: string[];
  kvno: number;
  key: EncryptionKey;
}

class Cursor {
  offset = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly end: number,
  ) {}
  need(n: number): void {
    if (this.offset + n > this.end) throw new KerberosError('KEYTAB', 'keytab entry truncated');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.offset++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  bytes(): Buffer {
    const n = this.u16();
    this.need(n);
    const b = Buffer.from(this.buf.subarray(this.offset, this.offset + n));
    this.offset += n;
    return b;
  }
  get remaining(): number {
    return this.end - this.offset;
  }
}

/** Parses a whole keytab file; throws KerberosError KEYTAB on anything malformed. */
export function parseKeytab(buf: Buffer): KeytabEntry[] {
  if (buf.length < 2 || buf[0] !== 0x05 || buf[1] !== 0x02) {
    throw new KerberosError('KEYTAB', 'not an MIT keytab of version 0x502 (export it with samba-tool domain exportkeytab or ktpass)');
  }
  const entries: KeytabEntry[] = [];
  let offset = 2;
  while (offset + 4 <= buf.length) {
    const size = buf.readInt32BE(offset);
    offset += 4;
    if (offset + Math.abs(size) > buf.length) throw new KerberosError('KEYTAB', 'keytab entry exceeds the file');
    if (size > 0) {
      const c = new Cursor(buf, offset + size);
      c.offset = offset;
      const count = c.u16();
      const realm = c.bytes().toString('utf8');
      const names = Array.from({ length: count }, () => c.bytes().toString('utf8'));
      c.u32(); // name type
      c.u32(); // timestamp
      let kvno = c.u8();
      const etype = c.u16();
      const value = c.bytes();
      // A 32-bit kvno follows when the entry has room for it; it supersedes the 8-bit one unless zero.
      if (c.remaining >= 4) kvno = c.u32() || kvno;
      entries.push({ realm, names, kvno, key: { etype, value } });
    }
    offset += Math.abs(size); // a negative size marks a deleted entry (a hole)
  }
  return entries;
}

/** Every entry of `user@realm` (names compared case-insensitively, as AD does): an acceptor needs the older key
 * versions too, for tickets issued before the last password change. */
export function entriesFor(entries: readonly KeytabEntry[], user: string, realm: string): KeytabEntry[] {
  const mine = entries.filter((e) => e.realm.toUpperCase() === realm.toUpperCase() && e.names.join('/').toLowerCase() === user.toLowerCase());
  if (mine.length === 0) {
    throw new KerberosError('KEYTAB', `the keytab holds no key for ${user}@${realm} (export one with samba-tool domain exportkeytab --principal=${user}@${realm})`);
  }
  return mine;
}

/** The keys of the newest key version of `user@realm`. */
export function keysFor(entries: readonly KeytabEntry[], user: string, realm: string): EncryptionKey[] {
  const mine = entriesFor(entries, user, realm);
  const newest = Math.max(...mine.map((e) => e.kvno));
  return mine.filter((e) => e.kvno === newest).map((e) => e.key);
}

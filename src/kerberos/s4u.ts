/**
 * Constrained delegation with protocol transition (MS-SFU): a service that holds its own TGT asks the KDC for a
 * ticket to itself in a user's name (S4U2Self, PA-FOR-USER), then trades that evidence ticket for one to another
 * service in the same name (S4U2Proxy, the evidence in additional-tickets). The directory decides: the service
 * account needs "trusted to authenticate for delegation" and the target in its msDS-AllowedToDelegateTo, and the KDC
 * refuses users marked sensitive or in Protected Users. The service's TGT must be forwardable.
 */
import { createHash, createHmac } from 'node:crypto';
import { KerberosError } from './errors.js';
import { servicePrincipal, tgsRequest, type Credential, type KdcChannel } from './exchanges.js';
import { KdcOption, KeyUsage, NameType, PaType, encodePaForUser, type PrincipalName } from './messages.js';

/** KERB_CHECKSUM_HMAC_MD5 (RFC 4757 4), which MS-SFU 2.2.1 prescribes for PA-FOR-USER whatever the key's type. */
const HMAC_MD5 = -138;
const AUTH_PACKAGE = 'Kerberos';

export function hmacMd5Checksum(key: Buffer, usage: number, data: Buffer): Buffer {
  const ksign = createHmac('md5', key).update(Buffer.from('signaturekey\0', 'latin1')).digest();
  const u = Buffer.alloc(4);
  u.writeUInt32LE(usage);
  return createHmac('md5', ksign).update(createHash('md5').update(Buffer.concat([u, data])).digest()).digest();
}

/** S4U2Self: a forwardable ticket to the service itself in the name of `user` of the service's realm. */
export async function s4u2self(kdc: KdcChannel, serviceTgt: Credential, user: string, now: Date = new Date()): Promise<Credential> {
  if (!(serviceTgt.flags & KdcOption.FORWARDABLE)) {
    throw new KerberosError('INVALID_ARGUMENT', 'S4U needs a forwardable TGT of the service account (the KDC answers constrained delegation failed otherwise)');
  }
  const name: PrincipalName = { type: NameType.PRINCIPAL, names: [user] };
  const nameType = Buffer.alloc(4);
  nameType.writeInt32LE(name.type);
  const signed = Buffer.concat([nameType, Buffer.from(name.names.join('') + kdc.realm + AUTH_PACKAGE, 'utf8')]);
  const cksum = { type: HMAC_MD5, value: hmacMd5Checksum(serviceTgt.key.value, KeyUsage.PA_FOR_USER_CKSUM, signed) };
  const forUser = { type: PaType.FOR_USER, value: encodePaForUser(name, kdc.realm, cksum, AUTH_PACKAGE) };
  return tgsRequest(kdc, serviceTgt, serviceTgt.client, now, { options: KdcOption.FORWARDABLE, padata: [forUser] });
}

/** S4U2Proxy: a ticket for `spn` in the name the evidence ticket (from S4U2Self) carries. */
export function s4u2proxy(kdc: KdcChannel, serviceTgt: Credential, evidence: Credential, spn: string, now: Date = new Date()): Promise<Credential> {
  return tgsRequest(kdc, serviceTgt, servicePrincipal(spn), now, {
    options: KdcOption.FORWARDABLE | KdcOption.CNAME_IN_ADDL_TKT,
    additionalTickets: [evidence.ticket],
  });
}

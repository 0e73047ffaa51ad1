/**
 * Constrained delegation with protocol transition (MS-SFU): a service that holds its own TGT asks the KDC for a
 * ticket to itself in a user's name (S4U2Self, PA-FOR-USER), then trades that evidence ticket for one to another
 * service in the same name (S4U2Proxy, the evidence in additional-tickets). The directory decides: the service
 * account needs "trusted to authenticate for delegation" and the target in its msDS-AllowedToDelegateTo, and the KDC
 * refuses users marked sensitive or in Protected Users. The service's TGT must be forwardable.
 *
 * The KDC answers every refusal of S4U2Proxy with the same KDC_ERR_BADOPTION; the evidence ticket tells the cases
 * apart beforehand: the KDC issues it without the forwardable flag for a user who may not be delegated (sensitive,
 * Protected Users) or a service account without protocol transition, so a refusal with a forwardable evidence ticket
 * is the target service's (not in msDS-AllowedToDelegateTo). Each is a DelegationRefusedError naming its reason.
 */
import { createHash, createHmac } from 'node:crypto';
import { KerberosError } from './errors.js';
import { servicePrincipal, tgsRequest, type Credential, type KdcChannel } from './exchanges.js';
import { KdcErrorCode, KdcOption, KeyUsage, NameType, PaType, encodePaForUser, type PrincipalName } from './messages.js';

/** Why the directory does not let the service act for a user; the answer to the client names it. */
export type DelegationRefusal = 'tgt_not_forwardable' | 'user_not_delegable' | 'service_not_allowed';

const REFUSAL_MESSAGES: Record<DelegationRefusal, string> = {
  tgt_not_forwardable: 'the KDC issued the service account a TGT that is not forwardable (is the account itself marked sensitive?), and S4U needs a forwardable one',
  user_not_delegable: 'the KDC will not delegate this user: the account is marked "sensitive and cannot be delegated" or is in Protected Users, or the service account may not use protocol transition ("Use any authentication protocol")',
  service_not_allowed: 'the KDC refused constrained delegation to this service: it is not in the service account\'s msDS-AllowedToDelegateTo (its Delegation tab)',
};

export class DelegationRefusedError extends KerberosError {
  override readonly name = 'DelegationRefusedError';
  constructor(readonly reason: DelegationRefusal, kdcError?: number) {
    super('KDC_ERROR', REFUSAL_MESSAGES[reason], kdcError);
  }
}

/** KERB_CHECKSUM_HMAC_MD5 (RFC 4757 4), which MS-SFU 2.2.1 prescribes for PA-FOR-USER whatever the key's type. */
const HMAC_MD5 = -138;
const AUTH_PACKAGE = 'Kerberos';

function hmacMd5Checksum(key: Buffer, usage: number, data: Buffer): Buffer {
  const ksign = createHmac('md5', key).update(Buffer.from('signaturekey\0', 'latin1')).digest();
  const u = Buffer.alloc(4);
  u.writeUInt32LE(usage);
  return createHmac('md5', ksign).update(createHash('md5').update(Buffer.concat([u, data])).digest()).digest();
}

/** S4U2Self: a forwardable ticket to the service itself in the name of `user` of the service's realm. */
export async function s4u2self(kdc: KdcChannel, serviceTgt: Credential, user: string, now: Date = new Date()): Promise<Credential> {
  if (!(serviceTgt.flags & KdcOption.FORWARDABLE)) throw new DelegationRefusedError('tgt_not_forwardable');
  const name: PrincipalName = { type: NameType.PRINCIPAL, names: [user] };
  const nameType = Buffer.alloc(4);
  nameType.writeInt32LE(name.type);
  const signed = Buffer.concat([nameType, Buffer.from(name.names.join('') + kdc.realm + AUTH_PACKAGE, 'utf8')]);
  const cksum = { type: HMAC_MD5, value: hmacMd5Checksum(serviceTgt.key.value, KeyUsage.PA_FOR_USER_CKSUM, signed) };
  const forUser = { type: PaType.FOR_USER, value: encodePaForUser(name, kdc.realm, cksum, AUTH_PACKAGE) };
  return tgsRequest(kdc, serviceTgt, serviceTgt.client, now, { options: KdcOption.FORWARDABLE, padata: [forUser] });
}

/** S4U2Proxy: a ticket for `spn` in the name the evidence ticket (from S4U2Self) carries. */
export async function s4u2proxy(kdc: KdcChannel, serviceTgt: Credential, evidence: Credential, spn: string, now: Date = new Date()): Promise<Credential> {
  if (!(evidence.flags & KdcOption.FORWARDABLE)) throw new DelegationRefusedError('user_not_delegable');
  try {
    return await tgsRequest(kdc, serviceTgt, servicePrincipal(spn), now, {
      options: KdcOption.FORWARDABLE | KdcOption.CNAME_IN_ADDL_TKT,
      additionalTickets: [evidence.ticket],
    });
  } catch (err) {
    if (err instanceof KerberosError && err.kdcError === KdcErrorCode.BADOPTION) throw new DelegationRefusedError('service_not_allowed', err.kdcError);
    throw err;
  }
}

// KDC-side messages for the unit tests of the decoders: what a KDC or a file server would send, built with the
// same DER helpers the client encodes with.
import { app, encode, fields, flags, int, octets, raw, seq, str, time, type Block } from '../../../src/kerberos/der.js';

const principal = (type: number, ...names: string[]): Block => fields([0, int(type)], [1, seq(names.map(str))]);
const encrypted = (etype: number, cipher: Buffer, kvno?: number): Block =>
  fields([0, int(etype)], [1, kvno === undefined ? undefined : int(kvno)], [2, octets(cipher)]);
const key = (etype: number, value: Buffer): Block => fields([0, int(etype)], [1, octets(value)]);

export const stime = new Date('2026-11-26T14:00:05Z');

export function ticket(): Block {
  return app(1, fields([0, int(5)], [1, str('EDU.TEST')], [2, principal(2, 'cifs', 'DC1.edu.test')], [3, encrypted(18, Buffer.alloc(40, 7), 2)]));
}

export function krbError(code: number, eData?: Buffer, eText?: string): Buffer {
  return encode(
    app(
      30,
      fields(
        [0, int(5)],
        [1, int(30)],
        [4, time(stime)],
        [5, int(123456)],
        [6, int(code)],
        [9, str('EDU.TEST')],
        [10, principal(2, 'krbtgt', 'EDU.TEST')],
        [11, eText === undefined ? undefined : str(eText)],
        [12, eData && octets(eData)],
      ),
    ),
  );
}

/** The salts of anna's keys, aes256 first (with `aes256Params` as its s2kparams, if given). */
export function etypeInfo2(aes256Params?: Buffer): Buffer {
  return encode(
    seq([
      fields([0, int(18)], [1, str('EDU.TESTanna')], [2, aes256Params && octets(aes256Params)]),
      fields([0, int(17)], [1, str('EDU.TESTanna')], [2, octets(Buffer.from([0, 0, 16, 0]))]),
    ]),
  );
}

export function methodData(info: Buffer = etypeInfo2()): Buffer {
  return encode(seq([fields([1, int(19)], [2, octets(info)]), fields([1, int(2)], [2, octets(Buffer.alloc(0))])]));
}

export function kdcRep(msgType: 11 | 13): Buffer {
  return encode(
    app(
      msgType,
      fields([0, int(5)], [1, int(msgType)], [3, str('EDU.TEST')], [4, principal(1, 'anna')], [5, ticket()], [6, encrypted(18, Buffer.alloc(60, 9))]),
    ),
  );
}

export function encKdcRepPart(tag: 25 | 26): Buffer {
  return encode(
    app(
      tag,
      fields(
        [0, key(18, Buffer.alloc(32, 1))],
        [1, seq([])],
        [2, int(0x7ffffff0)],
        [4, flags(0x40e10000)],
        [5, time(stime)],
        [7, time(new Date(stime.getTime() + 3600_000))],
        [9, str('EDU.TEST')],
        [10, principal(2, 'krbtgt', 'EDU.TEST')],
      ),
    ),
  );
}

export function apRep(): Buffer {
  return encode(app(15, fields([0, int(5)], [1, int(15)], [2, encrypted(18, Buffer.alloc(50, 3))])));
}

export function encApRepPart(): Buffer {
  return encode(app(27, fields([0, time(stime)], [1, int(999)], [2, key(18, Buffer.alloc(32, 4))], [3, int(77)])));
}

/**
 * EncTicketPart (RFC 4120 5.3) as a KDC seals it into a service ticket: flags, session key, client, times, and the
 * DER of its authorization-data if given (pac-frames.ts builds one with a PAC).
 */
export function encTicketPart(p: { flags: number; key: Buffer; client: string; authtime: Date; endtime: Date; authorizationData?: Buffer }): Buffer {
  return encode(
    app(
      3,
      fields(
        [0, flags(p.flags)],
        [1, key(18, p.key)],
        [2, str('EDU.TEST')],
        [3, principal(1, p.client)],
        [4, fields([0, int(1)], [1, octets(Buffer.alloc(0))])],
        [5, time(p.authtime)],
        [7, time(p.endtime)],
        [10, p.authorizationData && raw(p.authorizationData)],
      ),
    ),
  );
}

/** A Ticket for `service` of EDU.TEST whose enc-part is `cipher` (the EncTicketPart under the service key of `etype`). */
export function serviceTicket(service: string, cipher: Buffer, kvno: number, etype = 18): Buffer {
  return encode(app(1, fields([0, int(5)], [1, str('EDU.TEST')], [2, principal(2, ...service.split('/'))], [3, encrypted(etype, cipher, kvno)])));
}

/**
 * Talking to a KDC over TCP (RFC 4120 7.2.2): each message is preceded by its length as a 32-bit big-endian
 * number. TCP only: a reply carrying a PAC rarely fits a UDP datagram, and domain controllers answer
 * KRB_ERR_RESPONSE_TOO_BIG over UDP anyway. The KDCs of the config are tried in order.
 */
import { connect } from 'node:net';
import { KerberosError } from './errors.js';

export interface KdcAddress {
  host: string;
  port: number;
}

/** No KDC reply is anywhere near this; a larger announced length is a broken or hostile peer. */
const MAX_REPLY = 1 << 20;

function exchangeWith(kdc: KdcAddress, message: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: kdc.host, port: kdc.port });
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (why: string): void => {
      socket.destroy();
      reject(new KerberosError('KDC_UNREACHABLE', `KDC ${kdc.host}:${kdc.port}: ${why}`));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.on('error', (err) => fail(err.message));
    socket.on('connect', () => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 4) return;
      const all = Buffer.concat(chunks);
      const want = all.readUInt32BE(0);
      if (want > MAX_REPLY) return fail(`reply announces ${want} bytes (more than ${MAX_REPLY})`);
      if (all.length < 4 + want) return;
      socket.destroy();
      resolve(all.subarray(4, 4 + want));
    });
    socket.on('end', () => fail('closed the connection before a whole reply'));
  });
}

/** Sends one message to the first KDC that answers. */
export async function sendToKdc(kdcs: readonly KdcAddress[], message: Buffer, timeoutMs: number): Promise<Buffer> {
  const failures: string[] = [];
  for (const kdc of kdcs) {
    try {
      return await exchangeWith(kdc, message, timeoutMs);
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  throw new KerberosError('KDC_UNREACHABLE', `no KDC answered: ${failures.join('; ') || 'none configured'}`);
}

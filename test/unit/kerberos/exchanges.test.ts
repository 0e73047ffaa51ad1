import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { asExchange } from '../../../src/kerberos/exchanges.js';
import { KdcErrorCode } from '../../../src/kerberos/messages.js';
import { etypeInfo2, krbError, methodData } from './frames.js';

test('a KDC answer asking for string-to-key iterations out of bounds ends the logon before any key is made or sent', async () => {
  // The first AS answer names the salt and the iteration count, unprotected: a forged one may ask for anything.
  for (const [iterations, named] of [[0, 4294967296], [1, 1], [4095, 4095], [0xffffffff, 4294967295]] as const) {
    const params = Buffer.alloc(4);
    params.writeUInt32BE(iterations);
    const sent: Buffer[] = [];
    const kdc = { realm: 'EDU.TEST', send: async (m: Buffer) => (sent.push(m), krbError(KdcErrorCode.PREAUTH_REQUIRED, methodData(etypeInfo2(params)))) };
    await assert.rejects(
      asExchange(kdc, 'anna', { password: 'Geheim123!' }, { lifetimeSeconds: 3600 }),
      (e: unknown) => e instanceof KerberosError && e.code === 'PROTOCOL_ERROR' && e.message.includes(`asks for ${named} string-to-key iterations`),
      `${iterations} iterations`,
    );
    assert.equal(sent.length, 1, 'no pre-authentication made with a key of that count');
  }
  // The default count goes on to pre-authentication (which this KDC answers as before).
  const sent: Buffer[] = [];
  const kdc = { realm: 'EDU.TEST', send: async (m: Buffer) => (sent.push(m), krbError(KdcErrorCode.PREAUTH_REQUIRED, methodData(etypeInfo2(Buffer.from([0, 0, 16, 0]))))) };
  await assert.rejects(asExchange(kdc, 'anna', { password: 'Geheim123!' }, { lifetimeSeconds: 3600 }), (e: unknown) => e instanceof KerberosError && e.code === 'KDC_ERROR');
  assert.equal(sent.length, 2);
});

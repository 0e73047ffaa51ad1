import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { keysFor, parseKeytab } from '../../../src/kerberos/keytab.js';
import { mutate, prng } from '../smb/frames.js';

const counted = (s: string | Buffer): Buffer => {
  const b = typeof s === 'string' ? Buffer.from(s) : s;
  const n = Buffer.alloc(2);
  n.writeUInt16BE(b.length);
  return Buffer.concat([n, b]);
};

/** One MIT keytab entry (format 0x502) with its size prefix; `kvno32` appends the 32-bit key version. */
function entry(names: string[], kvno8: number, etype: number, key: Buffer, kvno32?: number): Buffer {
  const fixed = Buffer.alloc(9);
  fixed.writeUInt32BE(1, 0); // name type
  fixed.writeUInt32BE(1_700_000_000, 4); // timestamp
  fixed[8] = kvno8;
  const type = Buffer.alloc(2);
  type.writeUInt16BE(etype);
  const tail = kvno32 === undefined ? Buffer.alloc(0) : Buffer.from([kvno32 >>> 24, (kvno32 >>> 16) & 0xff, (kvno32 >>> 8) & 0xff, kvno32 & 0xff]);
  const count = Buffer.alloc(2);
  count.writeUInt16BE(names.length);
  const body = Buffer.concat([count, counted('EDU.TEST'), ...names.map((n) => counted(n)), fixed, type, counted(key), tail]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

function keytab(): Buffer {
  const hole = Buffer.alloc(4 + 10);
  hole.writeInt32BE(-10);
  return Buffer.concat([
    Buffer.from([5, 2]),
    entry(['svc-indexer'], 1, 18, Buffer.alloc(32, 1)),
    hole,
    entry(['svc-indexer'], 2, 18, Buffer.alloc(32, 2), 258), // the 8-bit kvno wrapped: the 32-bit one counts
    entry(['svc-indexer'], 2, 17, Buffer.alloc(16, 3), 258),
    entry(['HTTP', 'proxy.edu.test'], 5, 18, Buffer.alloc(32, 4)),
  ]);
}

test('a keytab gives the keys of the newest key version of the principal, skipping holes', () => {
  const entries = parseKeytab(keytab());
  assert.equal(entries.length, 4);
  assert.deepEqual(keysFor(entries, 'SVC-Indexer', 'edu.test'), [
    { etype: 18, value: Buffer.alloc(32, 2) },
    { etype: 17, value: Buffer.alloc(16, 3) },
  ]);
  assert.deepEqual(keysFor(entries, 'HTTP/proxy.edu.test', 'EDU.TEST'), [{ etype: 18, value: Buffer.alloc(32, 4) }]);
});

test('a keytab without the principal, of another format, or truncated is refused naming the problem', () => {
  assert.throws(() => keysFor(parseKeytab(keytab()), 'anna', 'EDU.TEST'), /no key for anna@EDU.TEST .*exportkeytab/);
  assert.throws(() => parseKeytab(Buffer.from([5, 1, 0, 0])), /not an MIT keytab of version 0x502/);
  assert.throws(() => parseKeytab(keytab().subarray(0, 30)), (e: unknown) => e instanceof KerberosError && e.code === 'KEYTAB');
});

test('the keytab parser survives 20,000 mutated files with only KerberosErrors', () => {
  const rnd = prng(0x6b74);
  const seed = keytab();
  for (let i = 0; i < 20_000; i++) {
    const input = mutate(seed, rnd);
    try {
      parseKeytab(input);
    } catch (err) {
      if (!(err instanceof KerberosError)) assert.fail(`non-Kerberos error ${String(err)} for ${input.toString('hex').slice(0, 200)}`);
    }
  }
});

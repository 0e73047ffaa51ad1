import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderSrv, parseDnsServer } from '../../../src/kerberos/kdc-dns.js';

const srv = (target: string, priority: number, weight: number) => ({ target, port: 88, priority, weight });

test('SRV records: lowest priority first, and within a priority each record in proportion to its weight (RFC 2782)', () => {
  const records = [srv('backup', 10, 0), srv('heavy', 0, 90), srv('light', 0, 10)];
  // The pick runs over the records in their order: a draw below 90 lands on heavy, from 90 on light.
  assert.deepEqual(orderSrv(records, () => 0).map((r) => r.target), ['heavy', 'light', 'backup']);
  assert.deepEqual(orderSrv(records, () => 95).map((r) => r.target), ['light', 'heavy', 'backup']);
  const firsts = new Map<string, number>();
  for (let i = 0; i < 2000; i++) {
    const first = orderSrv(records)[0]!.target;
    firsts.set(first, (firsts.get(first) ?? 0) + 1);
  }
  assert.equal(firsts.get('backup'), undefined, 'a higher priority number only after all lower ones');
  assert.ok(firsts.get('heavy')! > 1600 && firsts.get('light')! > 100, JSON.stringify([...firsts]));
  assert.deepEqual(orderSrv([srv('a', 0, 0), srv('b', 0, 0)]).map((r) => r.target), ['a', 'b'], 'weight 0 everywhere keeps the order');
});

test('DNS servers are an address with an optional port, IPv6 in brackets when a port follows', () => {
  assert.deepEqual(parseDnsServer('10.0.0.2'), { address: '10.0.0.2', port: 53 });
  assert.deepEqual(parseDnsServer('127.0.0.1:1053'), { address: '127.0.0.1', port: 1053 });
  assert.deepEqual(parseDnsServer('[::1]:5353'), { address: '::1', port: 5353 });
  assert.deepEqual(parseDnsServer('fe80::1'), { address: 'fe80::1', port: 53 });
});

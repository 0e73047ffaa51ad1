import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { decode, encode } from 'dns-packet';
import { lookUpKdcs, orderSrv, parseDnsServer } from '../../../src/kerberos/kdc-dns.js';

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

test('a DNS answer from another address or port than the server asked is ignored; the server\'s own is taken', async () => {
  const bound = async (address: string, port = 0): Promise<Socket> => {
    const socket = createSocket('udp4');
    socket.bind(port, address);
    await once(socket, 'listening');
    return socket;
  };
  const server = await bound('127.0.0.1');
  const port = server.address().port;
  // Forgers on the same host: another port of the server's address, and the server's port on another address.
  const forgers = [await bound('127.0.0.1'), await bound('127.0.0.2', port)];
  const name = '_kerberos._tcp.edu.test';
  const answer = (id: number, target: string, address: string): Buffer =>
    encode({
      type: 'response', id, flags: 0, questions: [{ type: 'SRV', name }],
      answers: [{ type: 'SRV', name, ttl: 600, data: { target, port: 88, priority: 0, weight: 0 } }],
      additionals: [{ type: 'A', name: target, ttl: 600, data: address }],
    });
  server.on('message', async (query, from) => {
    const { id } = decode(query);
    // Each forged answer, well-formed with the query's id, is on its way before the server's own.
    for (const forger of forgers) await new Promise((sent) => forger.send(answer(id!, 'kdc.forged.test', '192.0.2.66'), from.port, from.address, sent));
    server.send(answer(id!, 'dc1.edu.test', '10.0.0.11'), from.port, from.address);
  });
  try {
    const { kdcs } = await lookUpKdcs('EDU.TEST', [{ address: '127.0.0.1', port }], 2000);
    assert.deepEqual(kdcs, [{ host: '10.0.0.11', port: 88 }]);
  } finally {
    for (const socket of [server, ...forgers]) socket.close();
  }
});

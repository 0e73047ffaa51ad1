// The Kerberos client against the testbed DC's KDC: AS exchanges with a password and with a keytab, TGS
// exchanges, the ticket cache and its renewal before expiry, and the KDC's refusals explained.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { keysFor, parseKeytab } from '../../../src/kerberos/keytab.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { exportKeytab, fileServerSpn, kdcSettings } from '../../testbed/kerberos.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

const settings = kdcSettings();

const kerberosError = (code: string, message: RegExp) => (e: unknown): boolean => {
  assert.ok(e instanceof KerberosError, String(e));
  assert.equal(e.code, code);
  assert.match(e.message, message);
  return true;
};

describe('Kerberos client against the testbed KDC', () => {
  let env: TestbedEnv;
  let dir: string;
  /** A relay to the KDC that counts the client's messages: one connection each. */
  let kdc: TcpProxy;
  const counted = (ticketLifetimeSeconds?: number) => ({ ...kdcSettings(ticketLifetimeSeconds), kdcs: [{ host: '127.0.0.1', port: kdc.port }] });
  before(async () => {
    env = await readTestbedEnv();
    dir = await mkdtemp(join(tmpdir(), 'kerberos-test-'));
    kdc = await TcpProxy.start(settings.kdcs![0]!);
  });
  after(async () => {
    await kdc.down();
    await rm(dir, { recursive: true, force: true });
  });

  it('gets a TGT with a password (pre-authentication with the ETYPE-INFO2 salt) and a cifs ticket with it, then serves both from its cache', async () => {
    const client = new KerberosClient(counted(), 'anna', { password: env.users['anna']!.password });
    const sent = kdc.accepted;
    const ticket = await client.serviceTicket(fileServerSpn);
    assert.deepEqual(ticket.ticket.sname.names, fileServerSpn.split('/'));
    assert.equal(ticket.crealm, 'EDU.TEST');
    assert.equal(ticket.key.etype, 18, 'aes256-cts-hmac-sha1-96, the strongest type the DC has keys of');
    // AS twice (the first answered PREAUTH_REQUIRED) and TGS once.
    assert.equal(kdc.accepted - sent, 3);
    assert.equal(await client.serviceTicket(fileServerSpn.toLowerCase()), ticket);
    assert.equal(kdc.accepted - sent, 3, 'the cached ticket is used');
  });

  it('gets a TGT with the keys of a keytab that samba-tool exported', async () => {
    const file = join(dir, 'indexer.keytab');
    await exportKeytab(env.indexer.user, file);
    const keys = keysFor(parseKeytab(await readFile(file)), env.indexer.user, 'EDU.TEST');
    assert.ok(keys.some((k) => k.etype === 18));
    const client = new KerberosClient(settings, env.indexer.user, { keys });
    const tgt = await client.ticketGrantingTicket();
    assert.deepEqual(tgt.client.names, [env.indexer.user]);
  });

  it('names a wrong password, an unknown user and a missing SPN', async () => {
    await assert.rejects(new KerberosClient(settings, 'anna', { password: 'not her password' }).ticketGrantingTicket(), kerberosError('KDC_ERROR', /wrong password/));
    await assert.rejects(new KerberosClient(settings, 'nobody-here', { password: 'x' }).ticketGrantingTicket(), kerberosError('KDC_ERROR', /no such client principal/));
    const anna = new KerberosClient(settings, 'anna', { password: env.users['anna']!.password });
    await assert.rejects(anna.serviceTicket('cifs/nosuch.edu.test'), kerberosError('KDC_ERROR', /no service principal cifs\/nosuch\.edu\.test@EDU\.TEST; add the SPN/));
  });

  it('says by how many seconds the clocks differ when the KDC refuses the skew', async () => {
    const late = new KerberosClient(settings, 'anna', { password: env.users['anna']!.password }, { now: () => Date.now() - 3600_000 });
    await assert.rejects(late.ticketGrantingTicket(), (e: unknown) => {
      assert.ok(e instanceof KerberosError && e.code === 'CLOCK_SKEW', String(e));
      const seconds = Number(/clock is (-?\d+) s ahead/.exec(e.message)?.[1]);
      assert.ok(Math.abs(seconds - 3600) <= 5, e.message);
      return true;
    });
  });

  it('fetches new tickets before a short-lived one expires: no caller gets one with less than half its lifetime left', async () => {
    // The clock moves on by `offset`; within the KDC's 5 minutes of allowed skew.
    let offset = 0;
    const client = new KerberosClient(counted(300), 'anna', { password: env.users['anna']!.password }, { now: () => Date.now() + offset });
    const first = await client.serviceTicket(fileServerSpn);
    const lifetime = first.endtime.getTime() - first.authtime.getTime();
    assert.ok(lifetime <= 300_000 && lifetime > 240_000, `the KDC issued the short lifetime asked for (${lifetime} ms)`);
    offset = lifetime / 3; // two thirds left: still fresh
    assert.equal(await client.serviceTicket(fileServerSpn), first);
    offset = (lifetime * 2) / 3; // a third left: a new TGT and ticket
    const sent = kdc.accepted;
    const second = await client.serviceTicket(fileServerSpn);
    assert.notEqual(second, first);
    assert.ok(second.endtime > first.endtime);
    assert.equal(kdc.accepted - sent, 3);
  });
});

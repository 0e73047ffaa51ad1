// KDCs from DNS SRV records, asked of the testbed DC's own DNS server (Samba's internal DNS, which holds the records
// a DC registers): the lookup, its cache for the records' TTL, a client and an SMB logon with no KDC in the config,
// and the error when DNS knows no KDC of the realm.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { kdcsFromDns, lookUpKdcs, parseDnsServer } from '../../../src/kerberos/kdc-dns.js';
import { Connection } from '../../../src/smb/connection.js';
import { Session } from '../../../src/smb/session.js';
import { SmbLogons } from '../../../src/logon/smb-logons.js';
import { dcDnsServer } from '../../testbed/domain.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { fileServerSpn, kdcSettings } from '../../testbed/kerberos.js';
import { kerberosTestConfig } from './config.js';

const dns = [parseDnsServer(dcDnsServer)];
const { kdcs: _configured, ...withoutKdcs } = kdcSettings();

describe('KDCs from DNS SRV records', () => {
  let env: TestbedEnv;
  before(async () => {
    env = await readTestbedEnv();
  });

  it('finds the DC\'s KDC under _kerberos._tcp.<realm> with the address of its target, and a TTL', async () => {
    const { kdcs, ttl } = await lookUpKdcs('EDU.TEST', dns, 5000);
    assert.deepEqual(kdcs, [{ host: '127.0.0.1', port: 88 }]);
    assert.ok(ttl > 0 && ttl < 86_400, `TTL ${ttl} s`);
  });

  it('keeps the answer for its TTL: callers within it share one lookup, a caller after it looks up again', async () => {
    const { ttl } = await lookUpKdcs('EDU.TEST', dns, 5000);
    const start = Date.now() + 10 * 86_400_000; // past any entry an earlier test left
    const first = kdcsFromDns('EDU.TEST', dns, 5000, start);
    assert.equal(kdcsFromDns('edu.test', dns, 5000, start + 1000), first, 'the same lookup');
    await first;
    assert.equal(kdcsFromDns('EDU.TEST', dns, 5000, start + ttl * 1000 - 1), first, 'still within the TTL');
    assert.notEqual(kdcsFromDns('EDU.TEST', dns, 5000, start + ttl * 1000 + 1), first, 'a new lookup after it');
  });

  it('gets tickets with no KDC in the settings, and an SMB logon over Kerberos with no kerberos.kdcs in the config', async () => {
    const client = new KerberosClient({ ...withoutKdcs, dnsServers: dns }, 'anna', { password: env.users['anna']!.password });
    const ticket = await client.serviceTicket(fileServerSpn);
    assert.deepEqual(ticket.ticket.sname.names, fileServerSpn.split('/'));
    const config = kerberosTestConfig(env, { auth: 'kerberos', kerberos: { realm: 'EDU.TEST', dns_servers: [dcDnsServer], spns: { [env.smb.host]: fileServerSpn } } });
    assert.equal(config.kerberos?.kdcs, undefined);
    const credentials = new SmbLogons(config).user(env.smb.host, env.smb.domain, 'ben', env.users['ben']!.password);
    const connection = await Connection.connect({ host: env.smb.host, port: env.smb.port });
    try {
      const session = await Session.setup(connection, credentials);
      assert.equal(session.mechanism, 'kerberos');
      await session.logoff();
    } finally {
      connection.close();
    }
  });

  it('names what it asked when DNS knows no KDC of the realm, or no DNS server answers', async () => {
    // A realm inside the DC's zone, so that its DNS answers authoritatively that the name does not exist.
    const noRecords = new KerberosClient({ ...withoutKdcs, realm: 'NOSUCH.EDU.TEST', dnsServers: dns }, 'anna', { password: 'x' });
    await assert.rejects(noRecords.ticketGrantingTicket(), (e: unknown) => {
      assert.ok(e instanceof KerberosError && e.code === 'KDC_UNREACHABLE', String(e));
      assert.match(e.message, /no KDC for realm NOSUCH\.EDU\.TEST from DNS \(kerberos\.dns_servers 127\.0\.0\.1:1053\): DNS has no SRV record _kerberos\._tcp\.nosuch\.edu\.test or _kerberos\._udp\.nosuch\.edu\.test; list the KDCs in kerberos\.kdcs/);
      return true;
    });
    const silent = new KerberosClient({ ...withoutKdcs, timeoutMs: 300, dnsServers: [{ address: '127.0.0.1', port: 9 }] }, 'anna', { password: 'x' });
    await assert.rejects(silent.ticketGrantingTicket(), /no DNS server answered for _kerberos\._tcp\.edu\.test \(127\.0\.0\.1:9: /);
  });
});

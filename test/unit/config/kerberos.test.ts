import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configSchema } from '../../../src/config/schema.js';

const base = {
  smb: { server: 'fs1.schule.local', domain: 'SCHULE', shares: [{ name: 'schule' }] },
  ldap: { url: 'ldaps://dc1.schule.local' },
  admin: { user: 'fpadmin', groups: ['Schul-Admins'] },
};
const kerberos = { realm: 'SCHULE.LOCAL', kdcs: ['dc1.schule.local', 'dc2.schule.local:88'] };

const issues = (config: object): string[] => {
  const result = configSchema.safeParse(config);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

test('smb.auth defaults to negotiate; the kerberos section gets its defaults', () => {
  const config = configSchema.parse({ ...base, kerberos });
  assert.equal(config.smb.auth, 'negotiate');
  assert.deepEqual(config.kerberos, { ...kerberos, spns: {}, ticket_lifetime: 36_000_000, timeout: 10_000 });
});

test('smb.auth kerberos and an indexer keytab need the kerberos section; realm, KDCs and SPNs are checked', () => {
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, auth: 'kerberos' } }), ['smb.auth: kerberos needs the kerberos section (its realm)']);
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, indexer_service_account: { keytab_file: '/etc/k.keytab' } } }), [
    'smb.indexer_service_account.keytab_file: needs the kerberos section (its realm)',
  ]);
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, auth: 'spnego' } }), ['smb.auth: must be one of: negotiate, kerberos, ntlm']);
  assert.deepEqual(issues({ ...base, kerberos: { realm: 'schule.local', kdcs: [] } }), [
    'kerberos.realm: must be in capitals, like EDU.TEST',
    'kerberos.kdcs: must list at least one KDC (a domain controller), or be left out to find them in DNS',
  ]);
  assert.deepEqual(issues({ ...base, kerberos: { ...kerberos, kdcs: ['dc1 x'], spns: { '10.0.0.5': 'fs1' } } }), [
    'kerberos.kdcs.0: must be a host name or address, optionally with :port',
    'kerberos.spns.10.0.0.5: must be a service principal like cifs/DC1.edu.test',
  ]);
});

test('kerberos.delegation: an account and an absolute keytab path, an optional HTTP SPN', () => {
  const delegation = { account: 'svc-proxy', keytab_file: '/etc/edu-fileproxy/proxy.keytab', http_spn: 'HTTP/proxy.schule.local' };
  assert.deepEqual(configSchema.parse({ ...base, kerberos: { ...kerberos, delegation } }).kerberos?.delegation, delegation);
  assert.deepEqual(issues({ ...base, kerberos: { ...kerberos, delegation: { account: '', keytab_file: 'proxy.keytab', http_spn: 'proxy' } } }), [
    'kerberos.delegation.account: must not be empty',
    'kerberos.delegation.keytab_file: must be an absolute path, e.g. /etc/edu-fileproxy/...',
    'kerberos.delegation.http_spn: must be a service principal like HTTP/proxy.schule.local',
  ]);
});

test('without kerberos.kdcs the KDCs come from DNS, asked of kerberos.dns_servers (IP addresses, optionally with a port)', () => {
  const config = configSchema.parse({ ...base, kerberos: { realm: 'SCHULE.LOCAL', dns_servers: ['10.0.0.2', '127.0.0.1:1053', '[::1]:53', 'fe80::1'] } });
  assert.equal(config.kerberos?.kdcs, undefined);
  assert.deepEqual(issues({ ...base, kerberos: { realm: 'SCHULE.LOCAL', dns_servers: ['dc1.schule.local', '10.0.0.2:99999'] } }), [
    'kerberos.dns_servers.0: must be an IP address, optionally with :port (IPv6 with a port as [::1]:53)',
    'kerberos.dns_servers.1: must be an IP address, optionally with :port (IPv6 with a port as [::1]:53)',
  ]);
  assert.deepEqual(issues({ ...base, kerberos: { realm: 'SCHULE.LOCAL', dns_servers: [] } }), [
    'kerberos.dns_servers: must list at least one DNS server, or be left out to ask the system\'s',
  ]);
});

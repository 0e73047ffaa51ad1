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
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, auth: 'kerberos' } }), ['smb.auth: kerberos needs the kerberos section (realm and kdcs)']);
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, indexer_service_account: { keytab_file: '/etc/k.keytab' } } }), [
    'smb.indexer_service_account.keytab_file: needs the kerberos section (realm and kdcs)',
  ]);
  assert.deepEqual(issues({ ...base, smb: { ...base.smb, auth: 'spnego' } }), ['smb.auth: must be one of: negotiate, kerberos, ntlm']);
  assert.deepEqual(issues({ ...base, kerberos: { realm: 'schule.local', kdcs: [] } }), [
    'kerberos.realm: must be in capitals, like EDU.TEST',
    'kerberos.kdcs: must list at least one KDC (a domain controller)',
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

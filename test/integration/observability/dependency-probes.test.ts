// The readiness probes of a file server and of the directory against the testbed, through their facades (SmbShare.probe
// on a client of the probe's own, Directory.probe on a connection of its own): up with the indexer account's logon,
// down with the reason when the server refuses that logon or does not answer, and with the wiki off (no account) up
// on the server's answer to an anonymous session or a read of the root DSE.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, readIndexerPassword, type Config } from '../../../src/config/index.js';
import { dependencyProbes } from '../../../supervisor/dependency-probes.js';
import type { ServiceSecrets } from '../../../src/runtime/control.js';
import { freePort } from '../../support/ports.js';
import { readTestbedEnv } from '../../testbed/env.js';

const env = await readTestbedEnv();
const { config } = loadConfig(env.config);
const password = readIndexerPassword(config);

/** The probe `name` of `config` changed by `changes`. */
function probeOf(name: 'smb' | 'ldap', changes: Partial<Config>, secrets: ServiceSecrets) {
  return dependencyProbes({ ...config, ...changes }, secrets).find((p) => p.name === name)!;
}

const probeSmb = (smb: Partial<Config['smb']>, secrets: ServiceSecrets) => probeOf('smb', { smb: { ...config.smb, ...smb } }, secrets).run();
const probeLdap = (ldap: Partial<Config['ldap']>, secrets: ServiceSecrets) => probeOf('ldap', { ldap: { ...config.ldap, ...ldap } }, secrets);

describe('the readiness probe of a file server', () => {
  it('is up with the indexer account\'s session, naming the mechanism but not the account', async () => {
    const result = await probeSmb({}, { indexerPassword: password });
    assert.equal(result.up, true, result.detail);
    assert.match(result.detail, /^SMB session setup as the indexer account at .* \((NTLM|Kerberos, cifs\/.+)\)$/);
    assert.doesNotMatch(result.detail, new RegExp(env.indexer.user, 'i'));
  });

  it('is down, saying so, when the server refuses the logon', async () => {
    const result = await probeSmb({}, { indexerPassword: `${password}-not-it` });
    assert.equal(result.up, false);
    assert.match(result.detail, /^SMB session setup as the indexer account at .* failed: /);
  });

  it('is down when nothing answers at the port, with or without the account', async () => {
    const port = await freePort();
    for (const secrets of [{ indexerPassword: password }, {}]) {
      const result = await probeSmb({ port }, secrets);
      assert.equal(result.up, false);
      assert.match(result.detail, new RegExp(`:${port} does not answer an SMB negotiate: `));
    }
  });

  it('is up without the account (the wiki off) when the server answers an anonymous session', async () => {
    const result = await probeSmb({}, {});
    assert.equal(result.up, true, result.detail);
    assert.match(result.detail, /answers an SMB negotiate \(no logon as an account/);
  });
});

describe('the readiness probe of the directory', () => {
  it('is up with a bind as the indexer account, not naming it', async () => {
    const result = await probeLdap({}, { indexerPassword: password }).run();
    assert.equal(result.up, true, result.detail);
    assert.equal(result.detail, `LDAPS bind as the indexer account at ${config.ldap.url}`);
  });

  it('is down, saying so, when the directory refuses the bind', async () => {
    const result = await probeLdap({}, { indexerPassword: `${password}-not-it` }).run();
    assert.equal(result.up, false);
    assert.equal(result.detail, `binding as the indexer account at ${config.ldap.url}: invalid user name or password`);
  });

  it('is down when nothing answers at the URL, with or without the account', async () => {
    const url = `ldaps://127.0.0.1:${await freePort()}`;
    for (const secrets of [{ indexerPassword: password }, {}]) {
      const result = await probeLdap({ url }, secrets).run();
      assert.equal(result.up, false);
      assert.match(result.detail, /at ldaps:\/\/127\.0\.0\.1:\d+: directory service unavailable while /);
    }
  });

  it('is up without the account (the wiki off) when the directory answers a read of its root DSE', async () => {
    const result = await probeLdap({}, {}).run();
    assert.equal(result.up, true, result.detail);
    assert.match(result.detail, /answers over LDAPS \(no bind/);
  });

  it('is disabled without ldap.base_dn: the service then asks no directory', () => {
    assert.match(probeLdap({ base_dn: undefined }, { indexerPassword: password }).disabled ?? '', /ldap\.base_dn is not set/);
  });
});

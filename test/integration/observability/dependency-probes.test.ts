// The readiness probe of a file server against the testbed, through the SMB facade (a client of the probe's own):
// up with the indexer account's logon, down with the reason when the server refuses that logon or does not answer,
// and with the wiki off (no account) up on the server's answer to an anonymous session.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, readIndexerPassword, type Config } from '../../../src/config/index.js';
import { dependencyProbes } from '../../../src/metrics/dependency-probes.js';
import type { ServiceSecrets } from '../../../src/runtime/control.js';
import { freePort } from '../../support/ports.js';
import { readTestbedEnv } from '../../testbed/env.js';

const env = await readTestbedEnv();
const { config } = loadConfig(env.config);
const password = readIndexerPassword(config);

async function probeSmb(smb: Partial<Config['smb']>, secrets: ServiceSecrets) {
  const probes = dependencyProbes({ ...config, smb: { ...config.smb, ...smb } }, secrets);
  const probe = probes.find((p) => p.name === 'smb')!;
  return probe.run();
}

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

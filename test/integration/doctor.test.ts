// `fileproxy doctor` against the testbed: all green as set up, and a clear
// FAIL line with a fix for each deliberately broken case.
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { checkClusterHealth, checkFreeRam, checkNotExposed } from '../../src/doctor/checks.js';
import { listeningAddresses } from '../../src/doctor/listeners.js';
import { IndexManager } from '../../src/indexing/reconciler/index-manager.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';
import { doctor, failLine } from '../support/doctor.js';
import { serviceIndex, writeServiceConfig } from '../support/service.js';
import { ScratchAccounts } from './wiki/scratch-accounts.js';
import { testSearchClient } from '../support/es-indices.js';

/** A secret file of its own, next to the test config. */
function secretFile(configFile: string, content: string, mode: number): string {
  const file = join(dirname(configFile), 'indexer.secret');
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

describe('fileproxy doctor', () => {
  let env: TestbedEnv;
  before(async () => {
    env = await readTestbedEnv();
    // The service creates the alias on start; the doctor only looks for it: the testbed's (its config.yml) and this
    // file's own (the configs writeServiceConfig writes).
    const client = testSearchClient(env.es.url);
    for (const alias of [DEFAULT_ALIAS, serviceIndex]) await new IndexManager({ client, alias }).ensureIndex();
  });

  const indexerAccount = (password_file: string) => ({
    indexer_service_account: { user: env.indexer.user, password_file },
  });

  it('passes on the testbed as set up', async () => {
    // Files beside this one in the parallel tier create indices; while a new index's shards start the cluster is
    // yellow, which doctor rightly warns of. Asked again until the cluster has settled (a few seconds at most).
    const settled = Date.now() + 30_000;
    let run = await doctor(env.config);
    while (!run.lines.some((l) => l.startsWith('ok   Elasticsearch health')) && Date.now() < settled) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      run = await doctor(env.config);
    }
    const { code, lines } = run;
    assert.equal(code, 0, lines.join('\n'));
    assert.ok(lines.includes('all checks passed'));
    for (const check of ['config', 'indexer secret', 'LDAP', 'global-admin groups', 'share //127.0.0.1/schule', 'share //127.0.0.1/verwaltung', 'Elasticsearch health', 'wiki index', 'free RAM']) {
      assert.ok(lines.some((l) => l.startsWith(`ok   ${check}`)), `${check} ok in:\n${lines.join('\n')}`);
    }
    assert.ok(lines.some((l) => l.startsWith('ok   share //127.0.0.1/schule') && l.includes('takes a change watch (CHANGE_NOTIFY)')), lines.join('\n'));
  });

  it('fails on an invalid config and names the key', async () => {
    const { file } = await writeServiceConfig({ http: { port: 70000 } });
    const { code, lines } = await doctor(file);
    assert.equal(code, 1);
    assert.match(failLine(lines, 'config'), /http\.port: must be an integer between 1 and 65535/);
  });

  it('fails on a secret file readable by others', async () => {
    const { file } = await writeServiceConfig();
    const secret = secretFile(file, `${env.indexer.password}\n`, 0o644);
    const { file: broken } = await writeServiceConfig({ smb: indexerAccount(secret) });
    const { code, lines } = await doctor(broken);
    assert.equal(code, 1);
    assert.match(failLine(lines, 'indexer secret'), /mode 644/);
  });

  it('fails on a secret file with two trailing line breaks', async () => {
    const { file } = await writeServiceConfig();
    const secret = secretFile(file, `${env.indexer.password}\n\n`, 0o600);
    const { file: broken } = await writeServiceConfig({ smb: indexerAccount(secret) });
    assert.match(failLine((await doctor(broken)).lines, 'indexer secret'), /more than one line break/);
  });

  it('fails on a wrong indexer password: LDAP and shares', async () => {
    const { file } = await writeServiceConfig();
    const secret = secretFile(file, 'not-the-password\n', 0o600);
    const { file: broken } = await writeServiceConfig({ smb: indexerAccount(secret) });
    const { lines } = await doctor(broken);
    assert.match(failLine(lines, 'LDAP'), /bind as svc-indexer/);
    failLine(lines, 'share //127.0.0.1/schule');
  });

  it('fails without ldap.base_dn', async () => {
    const { file } = await writeServiceConfig({ ldap: { base_dn: undefined } });
    assert.match(failLine((await doctor(file)).lines, 'LDAP'), /ldap\.base_dn is not set/);
  });

  it('fails on a global-admin group that does not exist', async () => {
    const { file } = await writeServiceConfig({ admin: { groups: ['Schul-Admins', 'Keine Solche Gruppe'] } });
    assert.match(failLine((await doctor(file)).lines, 'global-admin groups'), /Keine Solche Gruppe/);
  });

  it('checks each trusted caller: it exists and the directory would let it log on', async () => {
    const accounts = new ScratchAccounts(env);
    try {
      const disabled = await accounts.createUser(`sso${process.pid % 10_000}-off`);
      await accounts.disable(disabled.name);
      const { file } = await writeServiceConfig({ wiki: { trusted_callers: ['anna', 'sso-gibtsnicht', disabled.name] } });
      const { lines } = await doctor(file);
      assert.ok(lines.some((l) => l.startsWith('ok   trusted caller anna: anna exists and may log on')), lines.join('\n'));
      assert.match(failLine(lines, 'trusted caller sso-gibtsnicht'), /no user sso-gibtsnicht under DC=edu,DC=test/);
      assert.match(failLine(lines, `trusted caller ${disabled.name}`), /refuses logons .*: disabled/);
    } finally {
      await accounts.removeAll();
    }
  });

  it('fails on a share that does not exist', async () => {
    const { file } = await writeServiceConfig({ smb: { shares: [{ name: 'schule' }, { name: 'gibtsnicht' }] } });
    const { lines } = await doctor(file);
    failLine(lines, 'share //127.0.0.1/gibtsnicht');
    assert.ok(lines.some((l) => l.startsWith('ok   share //127.0.0.1/schule')));
  });

  it('fails when Elasticsearch does not answer, and says it could not compare the proxies', async () => {
    const { file } = await writeServiceConfig({ elasticsearch: { url: 'http://127.0.0.1:1' } });
    const { lines } = await doctor(file);
    assert.match(failLine(lines, 'Elasticsearch health'), /unreachable/);
    assert.ok(lines.some((l) => l.startsWith('skip proxies of the same shares: cannot ask Elasticsearch')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('ok   free RAM')), 'the checks after it still run');
  });

  it('names each configured node that does not answer; the others serve the checks', async () => {
    const { file } = await writeServiceConfig({ elasticsearch: { url: undefined, nodes: [env.es.url, 'http://127.0.0.1:1'] } });
    const { lines } = await doctor(file);
    assert.ok(lines.some((l) => l.startsWith(`ok   Elasticsearch node ${env.es.url}: answers`)), lines.join('\n'));
    assert.match(failLine(lines, 'Elasticsearch node http://127.0.0.1:1'), /does not answer/);
    assert.ok(lines.some((l) => l.startsWith('ok   wiki index')), lines.join('\n'));
  });

  it('warns on a yellow cluster whose replicas the nodes cannot hold, naming the setting', async () => {
    const client = testSearchClient(env.es.url);
    const index = `doctor-yellow-${process.pid}`;
    try {
      await client.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 1 } });
      const result = await checkClusterHealth(client, 1);
      assert.equal(result.status, 'warn', result.detail);
      assert.match(result.detail, /yellow with 1 data node\(s\): elasticsearch.index.number_of_replicas is 1, but 1 node\(s\) hold at most 0/);
      assert.match(result.fix ?? '', /number_of_replicas: 0/);
    } finally {
      await client.indices.delete({ index }).catch(() => undefined);
      await client.close();
    }
  });

  it('fails on an unsecured node on another host', async () => {
    const { file } = await writeServiceConfig({ elasticsearch: { url: undefined, nodes: [env.es.url, 'http://192.0.2.7:9200'] } });
    assert.match(failLine((await doctor(file)).lines, 'Elasticsearch exposure'), /192\.0\.2\.7:9200 is reached without TLS and credentials/);
  });

  it('fails when the search port is listened on beyond loopback', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      assert.ok(listeningAddresses(port).includes('0.0.0.0'));
      const result = checkNotExposed(port);
      assert.equal(result.status, 'fail');
      assert.match(result.detail, /0\.0\.0\.0/);
    } finally {
      server.close();
    }
  });

  it('fails on too little free RAM', () => {
    assert.equal(checkFreeRam(1024 ** 3).status, 'fail');
    assert.equal(checkFreeRam(2 * 1024 ** 3).status, 'ok');
  });
});

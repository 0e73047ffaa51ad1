// The wiki index on an Elasticsearch with security on, as a district's cluster runs it: HTTPS with a certificate of
// its own CA, and an account with only the role the README names. Through the real service and `fileproxy doctor`:
// a user with a password file, and an API key made through Elasticsearch's API, each with elasticsearch.tls.ca_file,
// index, reindex and search, and doctor passes; a CA that did not sign the node's certificate, and a wrong password,
// are named as such by doctor, the readiness log and the pass, while the service keeps running; a secret file others may
// read is refused by the same rule as the indexer secret. The node is the testbed's (`npm run testbed -- secure up`);
// started here when it is not up, and then stopped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../../src/search/mapping.js';
import { doctor, failLine } from '../../support/doctor.js';
import { assertNothingCrashed } from '../../support/health.js';
import { noteSecret } from '../../support/log-audit.js';
import { loggedReadiness } from '../../support/readiness-log.js';
import { startService, writeServiceConfig, type RunningService } from '../../support/service.js';
import { ensureSecureNodeRunning, SERVICE_ROLE, stopSecureNode, type SecureNode } from '../../testbed/elasticsearch-secure.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { runJob } from '../reconcile/support.js';
import { passAfter, WikiClient, type Caller } from '../wiki/wiki-service.js';
import { FILEPROXY_CLI } from '../../support/cli-path.js';

const ADMIN: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
const NODE_LINE = 'Elasticsearch node https://127.0.0.1:9210';

type Auth = { username: string; password_file: string } | { api_key_file: string };

interface Readiness {
  status: string;
  checks: Record<string, { status: string }>;
}

describe('a secured Elasticsearch (HTTPS with its own CA, user or API key)', () => {
  let env: TestbedEnv;
  let node: SecureNode;
  let started = false;
  let admin: Client;
  let apiKeyId: string | undefined;
  const secrets = mkdtempSync(join(tmpdir(), 'fileproxy-es-secrets-'));

  /** A secret file as an operator writes it: one line, mode 600 unless a test wants it wrong. */
  const secretFile = (name: string, content: string, mode = 0o600): string => {
    const file = join(secrets, name);
    writeFileSync(file, `${content}\n`);
    chmodSync(file, mode);
    return file;
  };
  const securedConfig = (auth: Auth, { caFile = node.caFile, indexPrefix = DEFAULT_ALIAS } = {}) => ({
    elasticsearch: { url: undefined, nodes: [node.url], auth, tls: { ca_file: caFile }, index_prefix: indexPrefix },
    smb: { shares: [{ name: 'schule' }] },
    reconciler: { interval: '1h', watch: false },
  });
  const passwordAuth = (password: string, name = 'es.secret'): Auth => ({ username: node.service.username, password_file: secretFile(name, password) });
  /** The service's indices (deleted by name: Elasticsearch refuses wildcards in deletes). */
  const dropIndex = async () => {
    const indices = Object.keys(await admin.indices.get({ index: `${DEFAULT_ALIAS}*`, allow_no_indices: true }));
    if (indices.length > 0) await admin.indices.delete({ index: indices });
  };

  before(async () => {
    env = await readTestbedEnv();
    ({ node, started } = await ensureSecureNodeRunning());
    for (const account of [node.admin, node.service]) noteSecret(account.password);
    admin = createSearchClient({ nodes: [node.url], auth: node.admin, caCertificate: readFileSync(node.caFile, 'utf8') });
  });
  after(async () => {
    try {
      await dropIndex().catch(() => undefined);
      if (apiKeyId !== undefined) await admin.security.invalidateApiKey({ ids: [apiKeyId] });
      await admin?.close();
    } finally {
      rmSync(secrets, { recursive: true, force: true });
      // Only a node this test started; one someone brought up stays.
      if (started) await stopSecureNode();
    }
  });

  async function readiness(service: RunningService): Promise<{ status: number; body: Readiness }> {
    const response = await fetch(`${service.url}/readyz`);
    return { status: response.status, body: (await response.json()) as Readiness };
  }

  /**
   * A search for one of the testbed's own pages, in its folder: the files of the quiet tier, which runs beside this
   * one (test/tiers.ts), write pages that name the same word into scratch folders of the share.
   */
  const TESTBED_PAGE_SEARCH = { q: 'Vertretungsplan', share: 'schule', folder: 'Lehrerzimmer' };

  /** A service with `auth` creates the index, passes, searches and reindexes; doctor passes on its config. */
  async function servesTheWiki(auth: Auth): Promise<void> {
    await dropIndex();
    const since = Date.now();
    const service = await startService(securedConfig(auth));
    try {
      const pass = await passAfter(service, since);
      assert.deepEqual(pass.errors, [], JSON.stringify(pass));
      assert.ok(pass.indexed >= 9, `schule indexed: ${JSON.stringify(pass)}`);
      const api = new WikiClient(service.url, env);
      assert.deepEqual(await api.searchedPages(ADMIN, TESTBED_PAGE_SEARCH), ['schule:Lehrerzimmer/.wiki/index.md']);
      const job = await runJob(service, { kind: 'reindex' });
      assert.deepEqual([job.state, job.errors, job.failed], ['finished', [], 0], JSON.stringify(job));
      assert.deepEqual(await api.searchedPages(ADMIN, TESTBED_PAGE_SEARCH), ['schule:Lehrerzimmer/.wiki/index.md']);
      const ready = await readiness(service);
      assert.equal(ready.body.checks['elasticsearch']?.status, 'up', JSON.stringify(ready.body));

      const { code, lines } = await doctor(service.configFile);
      assert.equal(code, 0, lines.join('\n'));
      for (const check of [NODE_LINE, 'Elasticsearch health', 'wiki index']) {
        assert.ok(lines.some((l) => l.startsWith(`ok   ${check}`)), `${check} ok in:\n${lines.join('\n')}`);
      }
      assert.ok(!lines.some((l) => l.includes('Elasticsearch exposure')), 'a node with TLS and credentials is not checked for exposure');
      await assertNothingCrashed(service);
    } finally {
      await service.stop();
    }
  }

  /**
   * A service whose login or certificate check fails keeps running and says `problem` (one line, no stack) in its
   * readiness log and its first pass; searches answer degraded. Doctor names it with a fix.
   */
  async function namesTheProblem(auth: Auth, caFile: string, problem: RegExp): Promise<void> {
    const since = Date.now();
    const service = await startService(securedConfig(auth, { caFile }));
    try {
      const pass = await passAfter(service, since);
      assert.match(pass.errors.join(' '), problem, JSON.stringify(pass));
      const ready = await readiness(service);
      assert.equal(ready.status, 503);
      assert.equal(ready.body.checks['elasticsearch']?.status, 'down');
      const detail = (await loggedReadiness(service, ['elasticsearch']))['elasticsearch']!;
      assert.match(detail, problem);
      for (const text of [detail, ...pass.errors]) assert.doesNotMatch(text, /\n/, 'one line, not a dump');
      const search = await new WikiClient(service.url, env).request<{ degraded?: boolean }>('/wiki/search', { caller: ADMIN, body: { q: 'Vertretungsplan' } });
      assert.deepEqual([search.status, search.body.degraded], [200, true]);
      await assertNothingCrashed(service);

      const { code, lines } = await doctor(service.configFile);
      assert.equal(code, 1);
      assert.match(failLine(lines, NODE_LINE), problem);
      assert.match(failLine(lines, 'Elasticsearch health'), problem);
      assert.ok(!lines.some((l) => /^\s+at /.test(l)), `no stack trace in:\n${lines.join('\n')}`);
    } finally {
      await service.stop();
    }
  }

  it('with a user and its password file and the CA: indexes, reindexes and searches; doctor passes', async () => {
    await servesTheWiki(passwordAuth(node.service.password));
  });

  it('with an API key made through Elasticsearch\'s API, from a file: the same', async (t) => {
    let key: { id: string; api_key: string; encoded: string };
    try {
      key = await admin.security.createApiKey({ name: `fileproxy-test-${process.pid}`, role_descriptors: { fileproxy: SERVICE_ROLE } });
    } catch (error) {
      // Elasticsearch keeps API keys in its .security index, whose settings use analysis-common's pattern_capture
      // filter: the Maven Central distribution of the testbed lacks that module, so it cannot hold API keys.
      if (!/pattern_capture/.test(String(error))) throw error;
      t.skip('this Elasticsearch cannot make API keys (no analysis-common module for its .security index)');
      return;
    }
    apiKeyId = key.id;
    noteSecret(key.api_key);
    noteSecret(key.encoded);
    await servesTheWiki({ api_key_file: secretFile('es.key', key.encoded) });
  });

  it('with an API key Elasticsearch does not hold: doctor and the service name the failed authentication of that key', async () => {
    // The log audit matches noted secrets as substrings: the id, which the error names, shares no text with the
    // webhook keys other tests send (such as `unknown-key`).
    const encoded = Buffer.from('fileproxy-absent-key-id:absent-key-secret').toString('base64');
    await namesTheProblem({ api_key_file: secretFile('unknown.key', encoded) }, node.caFile,
      /authentication failed: Elasticsearch did not accept the login of elasticsearch\.auth \(401, .*API key: apikey authentication for id fileproxy-absent-key-id/);
  });

  it('with a CA that did not sign the node\'s certificate: doctor and the service name the certificate', async () => {
    // The testbed's other CA (the domain controller's): a real CA, only not the one that signed this node.
    await namesTheProblem(passwordAuth(node.service.password), env.ldap.ca_file, /TLS: the node's certificate is not trusted \(unable to verify the first certificate\)/);
  });

  it('with a wrong password: doctor and the service name the failed authentication', async () => {
    await namesTheProblem(passwordAuth('not-the-password', 'wrong.secret'), node.caFile, /authentication failed: Elasticsearch did not accept the login of elasticsearch\.auth \(401/);
  });

  it('with an index_prefix outside the account\'s role: the pass and doctor name the missing privilege', async () => {
    const since = Date.now();
    const service = await startService(securedConfig(passwordAuth(node.service.password), { indexPrefix: 'andere-schule' }));
    try {
      const pass = await passAfter(service, since);
      // As /healthz gives it to anyone: the action and the account are the log's (and doctor's) to name.
      assert.match(pass.errors.join(' '), /not authorized: the Elasticsearch account lacks a privilege \(403, action … is unauthorized for user \[…\]/, JSON.stringify(pass));
      assert.doesNotMatch(pass.errors.join(' '), /\[fileproxy\]/);
      const { code, lines } = await doctor(service.configFile);
      assert.equal(code, 1);
      assert.match(failLine(lines, 'wiki index'), /alias andere-schule: not authorized: the Elasticsearch account lacks a privilege \(403\)/);
      await assertNothingCrashed(service);
    } finally {
      await service.stop();
    }
  });

  it('refuses a password or API key file others may read, by the same rule and words as the indexer secret', async () => {
    const indexerFile = secretFile('indexer.secret', env.indexer.password, 0o644);
    const { file: indexerConfig } = await writeServiceConfig({ smb: { indexer_service_account: { user: env.indexer.user, password_file: indexerFile } } });
    const indexerRefusal = refusal(indexerConfig);
    assert.match(indexerRefusal, /has mode 644, so group or others may access it; run chmod 600/);
    /** The refusal with its config key and file replaced: what is left is the rule's wording. */
    const wording = (text: string, key: string, file: string) => text.replaceAll(key, '<key>').replaceAll(file, '<file>');
    const cases = [
      { key: 'elasticsearch.auth.password_file', file: secretFile('open.secret', node.service.password, 0o644), auth: (file: string): Auth => ({ username: node.service.username, password_file: file }) },
      { key: 'elasticsearch.auth.api_key_file', file: secretFile('open.key', 'a2V5OnNlY3JldA==', 0o644), auth: (file: string): Auth => ({ api_key_file: file }) },
    ];
    for (const { key, file, auth } of cases) {
      const { file: config } = await writeServiceConfig(securedConfig(auth(file)));
      assert.equal(wording(refusal(config), key, file), wording(indexerRefusal, 'smb.indexer_service_account.password_file', indexerFile));
      assert.match(failLine((await doctor(config)).lines, 'Elasticsearch credentials'), /has mode 644, so group or others may access it/);
    }
  });
});

/** What `fileproxy serve` says when it refuses to start on `config` (exit 1), without the closing "not starting." */
function refusal(config: string): string {
  const run = spawnSync(process.execPath, [FILEPROXY_CLI, 'serve', '--config', config], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 1, `${run.stdout}${run.stderr}`);
  return run.stderr.replace(/\nnot starting\.\n$/, '');
}

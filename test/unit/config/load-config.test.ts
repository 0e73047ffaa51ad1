import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultHttpFronts, loadConfig, type Config } from '../../../src/config/index.js';
import { MINIMAL_CONFIG, repoPath, writeTempFile } from './temp-config.js';

test('the shipped example config loads without warnings', () => {
  const { config, warnings } = loadConfig(repoPath('config/config.example.yml'));
  assert.deepEqual(warnings, []);
  assert.equal(config.elasticsearch.enabled, true);
  assert.equal(config.ldap.base_dn, 'DC=schule,DC=local');
  assert.deepEqual(config.smb.shares, [
    { name: 'schule' },
    { name: 'verwaltung' },
    { name: 'medien', server: 'fs2.schule.local' },
  ]);
});

test('a minimal config gets every default, durations in ms and sizes in bytes', () => {
  const file = writeTempFile(MINIMAL_CONFIG);
  const expected: Config = {
    http: { host: '127.0.0.1', port: 8080, max_body: 1024 * 1024, header_timeout: 10_000, body_timeout: 30_000, transport: 'node' },
    smb: {
      server: 'fs1.schule.local',
      port: 445,
      domain: 'SCHULE',
      shares: [{ name: 'schule' }],
      indexer_service_account: { user: 'svc-indexer', password_file: '/etc/edu-fileproxy/indexer.secret' },
      request_timeout: 30_000,
      idle_timeout: 300_000,
      session_max_age: 60_000,
      max_connections_per_account: 4,
      max_connections: 512,
      min_dialect: '3.0',
      require_encryption: true,
      auth: 'negotiate',
    },
    ldap: {
      url: 'ldaps://dc1.schule.local',
      base_dn: 'DC=schule,DC=local',
      tls: { reject_unauthorized: true },
      timeout: 5_000,
      cache_ttl: 300_000,
      negative_cache_ttl: 30_000,
    },
    admin: { user: 'fpadmin', groups: ['Schul-Admins'], session_ttl: 1_800_000 },
    auth: { max_failures: 5, max_address_failures: 100, trusted_addresses: [], lockout: 60_000, failure_window: 900_000 },
    elasticsearch: {
      enabled: true,
      nodes: ['http://127.0.0.1:9200'],
      tls: {},
      index_prefix: 'wiki-md',
      index: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: 1_000 },
    },
    wiki: { trusted_callers: [], trusted_callers_may_name_admins: false, live_acl: { enabled: true, max_age: 1_000 } },
    reconciler: { interval: 900_000, watch: true, pace: 'balanced' },
    webhooks: {
      supported_user_agents: ['service-eventhandler', 'platform-api'],
      dedupe_size: 100,
      max_timestamp_age: 300_000,
      replica_lease: 10_000,
      user_events: { ttl: 86_400_000, max_per_user: 200, max_total: 50_000, max_bytes: 67_108_864, max_event_size: 65_536 },
    },
    cluster: { shared_state: 'none', event_ids: 'shared', index_prefix: 'wiki-md-shared' },
    storage: { data_dir: '/var/lib/edu-fileproxy' },
    webdav: {
      locks: { max_per_user: 100, max_owner_size: 4096, max_deep_lock_members: 10_000 },
      dead_properties: { max_per_resource: 100, max_resource_size: 64 * 1024, max_user_size: 4 * 1024 * 1024, max_total_size: 64 * 1024 * 1024 },
    },
    workers: { http_front: defaultHttpFronts(), smb_readers: 2, indexers: 2 },
    supervisor: { max_restarts: 5, restart_window: 60_000, backoff_initial: 100, backoff_max: 5_000, shutdown_timeout: 10_000, spare_threads: false },
    log: { level: 'info' },
  };
  assert.deepEqual(loadConfig(file), { file, config: expected, warnings: [] });
});

test('the default number of HTTP fronts is half the cores, at least 1 and at most 8', () => {
  assert.deepEqual([1, 2, 3, 4, 6, 16, 64].map((cores) => defaultHttpFronts(cores)), [1, 1, 1, 2, 3, 8, 8]);
});

test('durations and sizes accept units and plain numbers (seconds, bytes)', () => {
  const file = writeTempFile(`${MINIMAL_CONFIG}reconciler:\n  interval: 600\nhttp:\n  max_body: 512KiB\n  header_timeout: 1.5s\n`);
  const { config } = loadConfig(file);
  assert.equal(config.reconciler.interval, 600_000);
  assert.equal(config.http.max_body, 512 * 1024);
  assert.equal(config.http.header_timeout, 1_500);
});

test('the indexer account defaults to the admin user', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('  indexer_service_account:\n    user: svc-indexer\n', '  indexer_service_account:\n'));
  const { config, warnings } = loadConfig(file);
  assert.deepEqual(config.smb.indexer_service_account, { user: 'fpadmin', password_file: '/etc/edu-fileproxy/indexer.secret' });
  assert.equal(config.elasticsearch.enabled, true, 'the elasticsearch block is present, so this is no legacy config');
  assert.deepEqual(warnings, []);
});

test('a share server overrides smb.server, which may be left out when every share has one', () => {
  const file = writeTempFile(
    MINIMAL_CONFIG.replace('  server: fs1.schule.local\n', '').replace(
      '    - name: schule\n',
      '    - name: schule\n      server: fs1.schule.local\n    - name: medien\n      server: fs2.schule.local\n',
    ),
  );
  const { config } = loadConfig(file);
  assert.equal(config.smb.server, undefined);
  assert.deepEqual(config.smb.shares, [
    { name: 'schule', server: 'fs1.schule.local' },
    { name: 'medien', server: 'fs2.schule.local' },
  ]);
});

test('workers.indexers sizes the indexer pool, without a warning', () => {
  const file = writeTempFile(`${MINIMAL_CONFIG}workers:\n  indexers: 3\n`);
  const { config, warnings } = loadConfig(file);
  assert.deepEqual(warnings, []);
  assert.equal(config.workers.indexers, 3);
});

test('unknown keys warn with file, line and path but do not fail', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('  domain: SCHULE\n', '  domain: SCHULE\n  workgroup: SCHULE\n') + 'extra: 1\n');
  const { config, warnings } = loadConfig(file);
  assert.deepEqual(warnings, ['config.yml:4 smb.workgroup: unknown key', 'config.yml:17 extra: unknown key']);
  assert.equal(config.smb.domain, 'SCHULE');
  assert.equal('workgroup' in config.smb, false);
});

test('unknown keys are also reported with a failing config, since a typo often explains a missing key', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('  domain: SCHULE\n', '  domian: SCHULE\n'));
  assert.throws(() => loadConfig(file), {
    name: 'ConfigError',
    message: 'config.yml:1 smb.domain: required',
    warnings: ['config.yml:3 smb.domian: unknown key'],
  });
});

test('without ldap.base_dn the config loads with one loud warning that search finds nothing', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('  base_dn: DC=schule,DC=local\n', ''));
  const { config, warnings } = loadConfig(file);
  assert.equal(config.ldap.base_dn, undefined);
  assert.equal(config.elasticsearch.enabled, true);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^config\.yml:8 ldap\.base_dn: NOT SET: wiki search will return NO hits/);
});

test('a config from before 1.1.7 loads with the wiki off and a warning naming the blocks to copy', () => {
  const { config, warnings } = loadConfig(repoPath('test/fixtures/config/legacy-1.1.6.yml'));
  assert.equal(config.elasticsearch.enabled, false);
  assert.deepEqual(
    config.smb.shares.map((share) => share.name),
    ['schule', 'verwaltung'],
  );
  assert.equal(config.smb.indexer_service_account.user, 'fpadmin');
  assert.deepEqual(warnings, [
    'legacy-1.1.6.yml:2: config from before 1.1.7 (no smb.indexer_service_account and no elasticsearch block): ' +
      'the wiki feature is OFF, WebDAV works as before; to turn the wiki on copy the blocks ' +
      'smb.indexer_service_account and elasticsearch from config/config.example.yml',
  ]);
});

test('a config with only one of the 1.1.7 blocks is no legacy config', () => {
  const onlyAccount = MINIMAL_CONFIG.replace('elasticsearch:\n  enabled: true\n', '');
  const onlyElasticsearch = MINIMAL_CONFIG.replace('  indexer_service_account:\n    user: svc-indexer\n', '');
  for (const yaml of [onlyAccount, onlyElasticsearch]) {
    assert.notEqual(yaml, MINIMAL_CONFIG);
    const { config, warnings } = loadConfig(writeTempFile(yaml));
    assert.deepEqual({ enabled: config.elasticsearch.enabled, warnings }, { enabled: true, warnings: [] });
  }
});

test('elasticsearch.enabled: false turns the wiki off without a warning', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('enabled: true', 'enabled: false'));
  const { config, warnings } = loadConfig(file);
  assert.equal(config.elasticsearch.enabled, false);
  assert.deepEqual(warnings, []);
});

test('cluster.shared_state: elasticsearch needs elasticsearch enabled, and names the shared indices after its prefix', () => {
  const shared = `${MINIMAL_CONFIG}cluster:\n  shared_state: elasticsearch\n`;
  assert.deepEqual(loadConfig(writeTempFile(shared)).config.cluster, { shared_state: 'elasticsearch', event_ids: 'shared', index_prefix: 'wiki-md-shared' });
  assert.equal(loadConfig(writeTempFile(`${shared}  event_ids: routed_by_key\n`)).config.cluster.event_ids, 'routed_by_key');
  assert.throws(() => loadConfig(writeTempFile(`${shared}  event_ids: sometimes\n`)), { name: 'ConfigError', message: /cluster\.event_ids: must be one of: shared, routed_by_key/ });
  assert.equal(loadConfig(writeTempFile(`${shared}  index_prefix: nord-proxies\n`)).config.cluster.index_prefix, 'nord-proxies');
  assert.throws(() => loadConfig(writeTempFile(shared.replace('enabled: true', 'enabled: false'))), {
    name: 'ConfigError',
    message: /cluster\.shared_state: elasticsearch needs elasticsearch\.enabled: true/,
  });
  assert.throws(() => loadConfig(writeTempFile(`${MINIMAL_CONFIG}cluster:\n  shared_state: redis\n`)), {
    name: 'ConfigError',
    message: /cluster\.shared_state: must be one of: none, elasticsearch/,
  });
});

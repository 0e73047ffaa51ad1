// The elasticsearch block: one node or a cluster, the replica default that follows from the node count, and the
// secret files of a secured cluster (read with the indexer secret's rules).
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig, readElasticsearchSecrets, type Config } from '../../../src/config/index.js';
import { createSearchClient } from '../../../src/search/client.js';
import { MINIMAL_CONFIG, writeTempFile } from './temp-config.js';

/** The minimal config with `lines` (indented under `elasticsearch:`) added to its block. */
function withElasticsearch(lines: string): Config {
  return loadConfig(writeTempFile(MINIMAL_CONFIG.replace('  enabled: true\n', `  enabled: true\n${lines}`))).config;
}

function secretFile(content: string, mode = 0o600): string {
  const file = writeTempFile(content, 'es.secret');
  chmodSync(file, mode);
  return file;
}

test('url is the one-node shorthand: no replicas, the default alias, refresh every second', () => {
  const { elasticsearch } = withElasticsearch('  url: http://127.0.0.1:9201\n');
  assert.deepEqual(elasticsearch.nodes, ['http://127.0.0.1:9201']);
  assert.deepEqual(elasticsearch.index, { number_of_shards: 1, number_of_replicas: 0, refresh_interval: 1000 });
  assert.equal(elasticsearch.index_prefix, 'wiki-md');
  assert.deepEqual(withElasticsearch('').elasticsearch.nodes, ['http://127.0.0.1:9200']);
});

test('several nodes get one replica by default; an explicit number is kept', () => {
  const cluster = '  nodes: [https://es1:9200, https://es2:9200, https://es3:9200]\n';
  assert.equal(withElasticsearch(cluster).elasticsearch.index.number_of_replicas, 1);
  const settings = withElasticsearch(`${cluster}  index:\n    number_of_shards: 3\n    number_of_replicas: 2\n    refresh_interval: 5s\n`);
  assert.deepEqual(settings.elasticsearch.index, { number_of_shards: 3, number_of_replicas: 2, refresh_interval: 5000 });
});

test('an API key file or a user and password file, each mode 600 with one trailing line break', () => {
  const apiKey = secretFile('VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==\n');
  assert.deepEqual(readElasticsearchSecrets(withElasticsearch(`  auth:\n    api_key_file: ${apiKey}\n`)), {
    auth: { apiKey: 'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==' },
  });
  const password = secretFile('Such-Geheim 7\n');
  const ca = writeTempFile('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', 'ca.pem');
  const config = withElasticsearch(`  auth:\n    username: fileproxy\n    password_file: ${password}\n  tls:\n    ca_file: ${ca}\n`);
  assert.deepEqual(readElasticsearchSecrets(config), {
    auth: { username: 'fileproxy', password: 'Such-Geheim 7' },
    caCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  });
  assert.deepEqual(readElasticsearchSecrets(withElasticsearch('')), {}, 'the sidecar needs none');
});

test('a secret file others may read, or with two line breaks, and a CA file that is no PEM certificate are refused naming the key and the fix', () => {
  const open = secretFile('key\n', 0o644);
  assert.throws(() => readElasticsearchSecrets(withElasticsearch(`  auth:\n    api_key_file: ${open}\n`)), {
    name: 'ConfigError',
    message: `elasticsearch.auth.api_key_file: ${open} has mode 644, so group or others may access it; run chmod 600 ${open}`,
  });
  const doubled = secretFile('pw\n\n');
  assert.throws(() => readElasticsearchSecrets(withElasticsearch(`  auth:\n    username: fileproxy\n    password_file: ${doubled}\n`)), {
    name: 'ConfigError',
    message: `elasticsearch.auth.password_file: ${doubled} ends with more than one line break; write the password of fileproxy followed by at most one newline into it`,
  });
  assert.throws(() => readElasticsearchSecrets(withElasticsearch('  tls:\n    ca_file: /nonexistent/ca.pem\n')), {
    name: 'ConfigError',
    message: 'elasticsearch.tls.ca_file: cannot read /nonexistent/ca.pem: ENOENT',
  });
  // A secret file named by mistake: TLS would skip it silently and distrust every node.
  const notPem = writeTempFile('Such-Geheim 7\n', 'not-a-ca.pem');
  assert.throws(() => readElasticsearchSecrets(withElasticsearch(`  tls:\n    ca_file: ${notPem}\n`)), {
    name: 'ConfigError',
    message: `elasticsearch.tls.ca_file: ${notPem} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's certificate in PEM`,
  });
});

test('the client knows every node', async () => {
  const nodes = ['http://127.0.0.1:9201', 'http://127.0.0.1:9202', 'http://127.0.0.1:9203'];
  const client = createSearchClient({ nodes, auth: { username: 'fileproxy', password: 'pw' } });
  try {
    assert.deepEqual(client.connectionPool.connections.map((c) => c.url.href), nodes.map((n) => `${n}/`));
  } finally {
    await client.close();
  }
});

// The shipped deployment files match the spec's sidecar table and a sane,
// hardened systemd service.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseUnit } from '../support/systemd-unit.js';

const configDir = fileURLToPath(new URL('../../../config/', import.meta.url));

describe('config/compose.yml: the search-engine sidecar', () => {
  const compose = parse(readFileSync(`${configDir}compose.yml`, 'utf8')) as {
    services: Record<string, Record<string, unknown>>;
    volumes: Record<string, unknown>;
  };
  const es = compose.services['elasticsearch']!;
  const env = es['environment'] as Record<string, string>;

  it('pins image version 8.19.3', () => {
    assert.equal(es['image'], 'docker.elastic.co/elasticsearch/elasticsearch:8.19.3');
  });
  it('sets the heap to -Xms512m -Xmx512m and the memory limit to 1 GB', () => {
    assert.equal(env['ES_JAVA_OPTS'], '-Xms512m -Xmx512m');
    assert.equal(es['mem_limit'], '1g');
  });
  it('publishes 9200 on 127.0.0.1 only', () => {
    assert.deepEqual(es['ports'], ['127.0.0.1:9200:9200']);
  });
  it('disables security and runs a single node', () => {
    assert.equal(env['xpack.security.enabled'], 'false');
    assert.equal(env['discovery.type'], 'single-node');
  });
  it('keeps data in the named volume es-data', () => {
    assert.ok('es-data' in compose.volumes);
    assert.deepEqual(es['volumes'], ['es-data:/usr/share/elasticsearch/data']);
  });
});

describe('config/edu-fileproxy.service', () => {
  const unit = parseUnit(readFileSync(`${configDir}edu-fileproxy.service`, 'utf8'));
  const service = unit['Service']!;
  const one = (key: string) => service[key]?.at(-1);

  it('has the three sections', () => {
    assert.deepEqual(Object.keys(unit), ['Unit', 'Service', 'Install']);
  });
  it('runs fileproxy serve as a dedicated user and restarts on failure', () => {
    assert.equal(one('ExecStart'), '/usr/bin/fileproxy serve --config /etc/edu-fileproxy/config.yml');
    assert.equal(one('User'), 'edu-fileproxy');
    assert.equal(one('Restart'), 'on-failure');
  });
  it('is hardened', () => {
    assert.equal(one('NoNewPrivileges'), 'yes');
    assert.equal(one('ProtectSystem'), 'strict');
    assert.equal(one('CapabilityBoundingSet'), '');
  });
  it('may write only its state directory', () => {
    assert.deepEqual(service['ReadWritePaths'], ['/var/lib/edu-fileproxy']);
  });
  it('checks the config before starting', () => {
    assert.equal(one('ExecStartPre'), '/usr/bin/fileproxy check-config --config /etc/edu-fileproxy/config.yml');
  });
});

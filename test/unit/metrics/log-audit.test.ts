// The log audit of a test run finds every form a secret could take in a log line.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findSecrets, secretsOfRun, serviceLogsIn } from '../../support/log-audit.js';
import type { TestbedEnv } from '../../testbed/env.js';

const env = {
  dc_admin: { user: 'Administrator', password: 'Dc-Admin-1' },
  admin: { user: 'fpadmin', password: 'Adm"in\\2' },
  indexer: { user: 'svc-indexer', password: 'Indexer-3', password_file: '/x' },
  users: { anna: { password: 'Anna-4', groups: [], sid: 'S-1-5-21-1' } },
} as unknown as TestbedEnv;

describe('log audit', () => {
  it('finds passwords (raw, JSON-escaped, inside Basic credentials) and noted secrets, naming them without their value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-audit-'));
    writeFileSync(join(dir, 'noted-secrets.txt'), 'k'.repeat(43) + '\n');
    writeFileSync(join(dir, 'service-1-100.log'), [
      '{"msg":"clean line","user":"anna"}',
      `{"msg":"oops","password":${JSON.stringify(env.admin.password)}}`,
      `{"authorization":"Basic ${Buffer.from('anna:Anna-4').toString('base64')}"}`,
      `{"key":"${'k'.repeat(43)}"}`,
    ].join('\n'));
    writeFileSync(join(dir, 'other.txt'), 'Dc-Admin-1 is not in a service log');

    const logs = serviceLogsIn(dir);
    assert.deepEqual(logs, [join(dir, 'service-1-100.log')]);
    const leaks = findSecrets(logs, secretsOfRun(env, dir));
    assert.deepEqual(leaks.map((l) => [l.line, l.secret]), [
      [2, 'password of admin (JSON-escaped)'],
      [3, 'Basic credentials of user anna'],
      [4, 'secret noted by a test #1'],
    ]);
    assert.ok(leaks.every((l) => !l.secret.includes('Anna-4') && !l.secret.includes('k'.repeat(43))));
  });
});

// The log audit of a test run finds every form a secret could take in a log line.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findSecrets, findSharePaths, secretsOfRun, serviceLogsIn, sharePathsOfRun } from '../../support/log-audit.js';
import type { TestbedEnv } from '../../testbed/env.js';
import { scratchDir } from '../../support/scratch-dir.js';

const env = {
  dc_admin: { user: 'Administrator', password: 'Dc-Admin-1' },
  admin: { user: 'fpadmin', password: 'Adm"in\\2' },
  indexer: { user: 'svc-indexer', password: 'Indexer-3', password_file: '/x' },
  users: { anna: { password: 'Anna-4', groups: [], sid: 'S-1-5-21-1' } },
  smb: { shares: [] },
} as unknown as TestbedEnv;

describe('log audit', () => {
  it('finds passwords (raw, JSON-escaped, inside Basic credentials) and noted secrets, naming them without their value', () => {
    const dir = scratchDir('log-audit-');
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

  it('finds share paths: of files on the shares, noted by tests, through a .wiki folder; as a value, in a message, after a share name; not in a webhook\'s event id', () => {
    const dir = scratchDir('log-audit-');
    const share = join(dir, 'shares', 'schule');
    mkdirSync(join(share, 'Klasse-12', '.wiki'), { recursive: true });
    writeFileSync(join(share, 'Klasse-12', '.wiki', 'Elternabend.md'), '');
    writeFileSync(join(dir, 'noted-share-paths.txt'), '_davwrite-1a2b3c4d/a.md\n_davwrite-1a2b3c4d\n');
    const lines = [
      '{"msg":"dav state ready","dir":"/tmp/fileproxy-test-x/data"}',
      '{"msg":"change watch of a .wiki folder ended","share":"schule","folder":"3f2a9c0d1e5b7a68"}',
      '{"msg":"wiki page not indexed","share":"schule","path":"Klasse-12/.wiki/Elternabend.md"}',
      '{"msg":"wiki pass: folder not listed","folder":"klasse-12"}',
      '{"error":"SmbStatusError: CREATE schule\\\\_davwrite-1a2b3c4d\\\\a.md: STATUS_SHARING_VIOLATION"}',
      '{"reason":"…/Fachschaften/Mathe/.wiki changed"}',
      '{"msg":"listening","host":"127.0.0.1","share":"schule"}',
      '{"msg":"platform-api webhook event received","event_id":"Klasse-12\\\\.wiki\\"x"}',
      '{"msg":"platform-api webhook event received","event_id":".wiki","path":"Klasse-12/.wiki"}',
    ];
    writeFileSync(join(dir, 'service-1-100.log'), lines.join('\n'));
    const paths = sharePathsOfRun({ ...env, smb: { shares: [{ name: 'schule', path: share }] } } as unknown as TestbedEnv, dir);
    const leaks = findSharePaths(serviceLogsIn(dir), paths);
    assert.deepEqual(leaks.map((l) => l.line), [3, 4, 5, 6, 9]);
  });
});


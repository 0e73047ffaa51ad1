// Each invalid config must fail with exactly the listed issues: file basename, line, key path, message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/index.js';
import { MINIMAL_CONFIG, writeTempFile } from './temp-config.js';

interface BadConfig {
  name: string;
  yaml: string;
  issues: string[];
}

/** The minimal config with `section` (a top-level block) appended after its 15 lines. */
const withSection = (section: string): string => MINIMAL_CONFIG + section;

const BAD_CONFIGS: BadConfig[] = [
  {
    name: 'share entry without a name',
    yaml: `smb:
  server: fs1.schule.local
  domain: SCHULE
  shares:
    - name: schule
    - name: verwaltung
    - server: fs2.schule.local
ldap:
  url: ldaps://dc1.schule.local
  base_dn: DC=schule,DC=local
admin:
  user: fpadmin
  groups: [Schul-Admins]
elasticsearch:
  enabled: true
`,
    issues: ['config.yml:7 smb.shares[2].name: required'],
  },
  {
    name: 'trusted address that is a host name',
    yaml: withSection('auth:\n  trusted_addresses: [10.0.0.5, portal.schule.local]\n'),
    issues: ['config.yml:17 auth.trusted_addresses[1]: must be an IPv4 or IPv6 address, e.g. 10.0.0.5'],
  },
  {
    name: 'trusted caller that is not an account name',
    yaml: withSection('wiki:\n  trusted_callers: [portal-svc, "CN=portal,DC=schule"]\n'),
    issues: ['config.yml:17 wiki.trusted_callers[1]: must be an account name (user, DOMAIN\\user or user@realm) of at most 256 characters'],
  },
  {
    name: 'port out of range',
    yaml: withSection('http:\n  host: 127.0.0.1\n  port: 70000\n'),
    issues: ['config.yml:18 http.port: must be an integer between 1 and 65535'],
  },
  {
    name: 'port written as a string',
    yaml: withSection('http:\n  port: "8080"\n'),
    issues: ['config.yml:17 http.port: must be an integer between 1 and 65535'],
  },
  {
    name: 'duration in words',
    yaml: withSection('reconciler:\n  interval: 15 minutes\n'),
    issues: ['config.yml:17 reconciler.interval: not a valid duration (use e.g. 30s, 15m, 24h)'],
  },
  {
    name: 'zero duration',
    yaml: withSection('webhooks:\n  max_timestamp_age: 0s\n'),
    issues: ['config.yml:17 webhooks.max_timestamp_age: must be a duration longer than 0 (use e.g. 30s, 15m, 24h)'],
  },
  {
    name: 'elasticsearch URL with another scheme',
    yaml: MINIMAL_CONFIG.replace('  enabled: true\n', '  enabled: true\n  url: ftp://127.0.0.1:9200\n'),
    issues: ['config.yml:16 elasticsearch.url: must be a URL with scheme http or https'],
  },
  {
    name: 'elasticsearch url and nodes both given',
    yaml: MINIMAL_CONFIG.replace('  enabled: true\n', '  enabled: true\n  url: http://127.0.0.1:9200\n  nodes: [https://es1:9200, https://es2:9200]\n'),
    issues: ['config.yml:17 elasticsearch.nodes: give either elasticsearch.url (one node) or elasticsearch.nodes, not both'],
  },
  {
    name: 'elasticsearch node that is not a URL, and an empty node list',
    yaml: MINIMAL_CONFIG.replace('  enabled: true\n', '  enabled: true\n  nodes:\n    - https://es1:9200\n    - es2:9200\n'),
    issues: ['config.yml:18 elasticsearch.nodes[1]: must be a URL with scheme http or https'],
  },
  {
    name: 'elasticsearch auth with a user but no password file',
    yaml: MINIMAL_CONFIG.replace('  enabled: true\n', '  enabled: true\n  auth:\n    username: fileproxy\n'),
    issues: ['config.yml:16 elasticsearch.auth: must hold either api_key_file, or username and password_file'],
  },
  {
    name: 'elasticsearch index settings out of range, and an alias with capitals',
    yaml: MINIMAL_CONFIG.replace('  enabled: true\n', '  enabled: true\n  index_prefix: Wiki\n  index:\n    number_of_replicas: -1\n    refresh_interval: soon\n'),
    issues: [
      'config.yml:16 elasticsearch.index_prefix: must be an index name: lower-case letters, digits, - and _ (e.g. wiki-md-nord)',
      'config.yml:18 elasticsearch.index.number_of_replicas: must be an integer between 0 and 16',
      'config.yml:19 elasticsearch.index.refresh_interval: not a valid duration (use e.g. 30s, 15m, 24h)',
    ],
  },
  {
    name: 'LDAP URL with http scheme',
    yaml: MINIMAL_CONFIG.replace('ldaps://dc1.schule.local', 'http://dc1.schule.local'),
    issues: ['config.yml:9 ldap.url: must be an ldaps:// URL (simple binds send passwords, so plain ldap:// is refused)'],
  },
  {
    name: 'LDAP URL without TLS',
    yaml: MINIMAL_CONFIG.replace('ldaps://dc1.schule.local', 'ldap://dc1.schule.local'),
    issues: ['config.yml:9 ldap.url: must be an ldaps:// URL (simple binds send passwords, so plain ldap:// is refused)'],
  },
  {
    name: 'LDAP URL missing: points at the ldap mapping',
    yaml: MINIMAL_CONFIG.replace('  url: ldaps://dc1.schule.local\n', ''),
    issues: ['config.yml:8 ldap.url: required'],
  },
  {
    name: 'ldap section missing: points at the start of the file',
    yaml: '# school config\n' + MINIMAL_CONFIG.replace('ldap:\n  url: ldaps://dc1.schule.local\n  base_dn: DC=schule,DC=local\n', ''),
    issues: ['config.yml:2 ldap: required'],
  },
  {
    name: 'TLS certificate without key',
    yaml: withSection('http:\n  tls:\n    cert_file: /etc/edu-fileproxy/tls/fileproxy.crt\n'),
    issues: ['config.yml:17 http.tls.key_file: required when http.tls is set (it needs both cert_file and key_file)'],
  },
  {
    name: 'duplicate share names, differing only in case',
    yaml: MINIMAL_CONFIG.replace('    - name: schule\n', '    - name: schule\n    - name: medien\n    - name: Schule\n'),
    issues: ['config.yml:7 smb.shares[2].name: duplicate share name "Schule" (already used by smb.shares[0])'],
  },
  {
    name: 'share without server while smb.server is not set',
    yaml: MINIMAL_CONFIG.replace('  server: fs1.schule.local\n', '').replace(
      '    - name: schule\n',
      '    - name: schule\n      server: fs1.schule.local\n    - name: medien\n',
    ),
    issues: ['config.yml:6 smb.shares[1].server: required because smb.server is not set'],
  },
  {
    name: 'one account allowed more SMB connections than all accounts together',
    yaml: MINIMAL_CONFIG.replace('  domain: SCHULE\n', '  domain: SCHULE\n  max_connections_per_account: 8\n  max_connections: 6\n'),
    issues: ['config.yml:4 smb.max_connections_per_account: must not be more than smb.max_connections (6)'],
  },
  {
    name: 'server written as URL',
    yaml: MINIMAL_CONFIG.replace('server: fs1.schule.local', 'server: smb://fs1.schule.local'),
    issues: ['config.yml:2 smb.server: must be a host name or IP address without scheme or path, e.g. fs1.schule.local'],
  },
  {
    name: 'one user event allowed to be larger than all of them together',
    yaml: withSection('webhooks:\n  user_events:\n    max_event_size: 2MiB\n    max_bytes: 1MiB\n'),
    issues: ['config.yml:18 webhooks.user_events.max_event_size: must not exceed webhooks.user_events.max_bytes'],
  },
  {
    name: 'negative worker count',
    yaml: withSection('workers:\n  smb_readers: -2\n'),
    issues: ['config.yml:17 workers.smb_readers: must be an integer between 1 and 256'],
  },
  {
    name: 'elasticsearch.enabled as the string "yes"',
    yaml: MINIMAL_CONFIG.replace('enabled: true', 'enabled: "yes"'),
    issues: ['config.yml:15 elasticsearch.enabled: must be true or false'],
  },
  {
    name: 'shares not a list',
    yaml: MINIMAL_CONFIG.replace('  shares:\n    - name: schule\n', '  shares: schule\n'),
    issues: ['config.yml:4 smb.shares: must be a list'],
  },
  {
    name: 'shares as plain names',
    yaml: MINIMAL_CONFIG.replace('  shares:\n    - name: schule\n', '  shares: [schule, verwaltung]\n'),
    issues: [
      'config.yml:4 smb.shares[0]: must be a mapping like "- name: schule"',
      'config.yml:4 smb.shares[1]: must be a mapping like "- name: schule"',
    ],
  },
  {
    name: 'share name that YAML reads as a number',
    yaml: MINIMAL_CONFIG.replace('    - name: schule\n', '    - name: schule\n    - name: 2024\n'),
    issues: ['config.yml:6 smb.shares[1].name: must be a string (write it in quotes: "2024")'],
  },
  {
    name: 'empty list of shares',
    yaml: MINIMAL_CONFIG.replace('  shares:\n    - name: schule\n', '  shares: []\n'),
    issues: ['config.yml:4 smb.shares: must list at least one share'],
  },
  {
    name: 'required key written without a value',
    yaml: MINIMAL_CONFIG.replace('domain: SCHULE', 'domain:'),
    issues: ['config.yml:3 smb.domain: required'],
  },
  {
    name: 'size without a known unit',
    yaml: withSection('http:\n  max_body: 1 MegaByte\n'),
    issues: ['config.yml:17 http.max_body: not a valid size (use e.g. 512KiB, 1MiB or a number of bytes above 0)'],
  },
  {
    name: 'relative data directory',
    yaml: withSection('storage:\n  data_dir: var/lib/edu-fileproxy\n'),
    issues: ['config.yml:17 storage.data_dir: must be an absolute path, e.g. /etc/edu-fileproxy/...'],
  },
  {
    name: 'unknown log level',
    yaml: withSection('log:\n  level: verbose\n'),
    issues: ['config.yml:17 log.level: must be one of: fatal, error, warn, info, debug, trace, silent'],
  },
  {
    name: 'unknown pace of background work',
    yaml: withSection('reconciler:\n  pace: slow\n'),
    issues: ['config.yml:17 reconciler.pace: must be one of: fast, balanced, gentle'],
  },
  {
    name: 'base DN that is not a DN',
    yaml: MINIMAL_CONFIG.replace('base_dn: DC=schule,DC=local', 'base_dn: schule.local'),
    issues: ['config.yml:10 ldap.base_dn: must be a DN like DC=schule,DC=local'],
  },
  {
    name: 'admin groups empty',
    yaml: MINIMAL_CONFIG.replace('groups: [Schul-Admins]', 'groups: []'),
    issues: ['config.yml:13 admin.groups: must list at least one group'],
  },
  {
    name: 'YAML syntax error: unclosed quote',
    yaml: MINIMAL_CONFIG.replace('domain: SCHULE', 'domain: "SCHULE'),
    issues: ['config.yml:16: invalid YAML: missing closing "quote'],
  },
  {
    name: 'YAML syntax error: key given twice',
    yaml: MINIMAL_CONFIG.replace('  domain: SCHULE\n', '  domain: SCHULE\n  domain: SCHULE2\n'),
    issues: ['config.yml:4: invalid YAML: map keys must be unique'],
  },
  {
    name: 'YAML alias without anchor',
    yaml: MINIMAL_CONFIG.replace('domain: SCHULE', 'domain: *domain'),
    issues: ['config.yml: invalid YAML: unresolved alias (the anchor must be set before the alias): domain'],
  },
  {
    name: 'empty file',
    yaml: '',
    issues: ['config.yml: file is empty (see config/config.example.yml)'],
  },
  {
    name: 'file with comments only',
    yaml: '# nothing configured yet\n',
    issues: ['config.yml: file is empty (see config/config.example.yml)'],
  },
  {
    name: 'a list instead of a mapping',
    yaml: '- smb\n- ldap\n',
    issues: ['config.yml:1: must be a mapping (key: value lines)'],
  },
  {
    name: 'several problems, reported in file order',
    yaml: 'workers:\n  indexers: 0\n' + MINIMAL_CONFIG.replace('enabled: true', 'enabled: 1').replace('domain: SCHULE', 'domain: [SCHULE]'),
    issues: [
      'config.yml:2 workers.indexers: must be an integer between 1 and 64',
      'config.yml:5 smb.domain: must be a string',
      'config.yml:17 elasticsearch.enabled: must be true or false',
    ],
  },
];

for (const bad of BAD_CONFIGS) {
  test(`rejects config: ${bad.name}`, () => {
    const file = writeTempFile(bad.yaml);
    assert.throws(
      () => loadConfig(file),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
        assert.deepEqual(error.message.split('\n'), bad.issues);
        assert.equal(error.issues.length, bad.issues.length);
        return true;
      },
    );
  });
}

test('ConfigError.issues carry line and path separately', () => {
  const file = writeTempFile(withSection('http:\n  port: 0\n'));
  assert.throws(
    () => loadConfig(file),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.issues, [{ line: 17, path: 'http.port', message: 'must be an integer between 1 and 65535' }]);
      return true;
    },
  );
});

test('a missing file is a ConfigError naming the path', () => {
  assert.throws(() => loadConfig('/nonexistent/edu-fileproxy/config.yml'), {
    name: 'ConfigError',
    message: 'config.yml: cannot read /nonexistent/edu-fileproxy/config.yml: no such file',
  });
});

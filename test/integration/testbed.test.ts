// The testbed's servers answer as env.json promises: LDAPS with a verifiable certificate, a healthy
// Elasticsearch, SMB shares with signing/encryption and folder ACLs that differ per user, and the NTLM mode it
// records (`up --ntlm=off`: NTLM refused, the service config on Kerberos alone).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Client as ElasticClient } from '@elastic/elasticsearch';
import { Client as LdapClient } from 'ldapts';
import { loadConfig, readIndexerPassword } from '../../src/config/index.js';
import { decodeSid } from '../../src/windows-security/sid.js';
import { Connection } from '../../src/smb/connection.js';
import { Session } from '../../src/smb/session.js';
import { sambaClientAs } from '../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';

let env: TestbedEnv;

before(async () => {
  env = await readTestbedEnv();
});

const mathGroup = 'Lehrkräfte Mathe';

async function ldapClient(serverName: string): Promise<LdapClient> {
  return new LdapClient({
    url: env.ldap.url,
    timeout: 5000,
    connectTimeout: 5000,
    tlsOptions: { ca: [await readFile(env.ldap.ca_file)], servername: serverName },
  });
}

describe('testbed LDAPS', () => {
  it('binds as the indexer with a verified certificate and reads a group objectSid', async () => {
    const client = await ldapClient(env.ldap.server_name);
    try {
      await client.bind(`${env.indexer.user}@${env.smb.realm}`, env.indexer.password);
      const { searchEntries } = await client.search(env.ldap.base_dn, {
        filter: `(&(objectClass=group)(sAMAccountName=${mathGroup}))`,
        attributes: ['objectSid', 'cn'],
        explicitBufferAttributes: ['objectSid'],
      });
      assert.equal(searchEntries.length, 1);
      const [entry] = searchEntries;
      assert.ok(Buffer.isBuffer(entry?.objectSid));
      assert.equal(decodeSid(entry.objectSid), env.groups[mathGroup]);
    } finally {
      await client.unbind();
    }
  });

  it('rejects a server name the certificate is not issued to', async () => {
    const client = await ldapClient('not-the-dc.edu.test');
    await assert.rejects(client.bind(`${env.indexer.user}@${env.smb.realm}`, env.indexer.password), /altnames|Hostname/i);
    await client.unbind().catch(() => undefined);
  });
});

describe('testbed Elasticsearch', () => {
  it('reports cluster health green or yellow', async () => {
    const client = new ElasticClient({ node: env.es.url });
    try {
      const health = await client.cluster.health();
      assert.ok(['green', 'yellow'].includes(health.status), `cluster status ${health.status}`);
    } finally {
      await client.close();
    }
  });
});

interface SmbResult {
  code: number;
  output: string;
}

function smbclient(share: string, user: string, options: string[], commands: string): Promise<SmbResult> {
  const password = env.users[user]?.password;
  assert.ok(password, `env.json has no user ${user}`);
  return new Promise((resolve, reject) => {
    const command = sambaClientAs(env, share, { user, password }, [...options, '-c', commands]);
    const child = spawn('smbclient', command.args, { stdio: ['ignore', 'pipe', 'pipe'], env: command.env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

function shareProtection(share: string): string {
  const spec = env.smb.shares.find((candidate) => candidate.name === share);
  assert.ok(spec, `env.json lists no share ${share}`);
  return `--client-protection=${spec.encrypt ? 'encrypt' : 'sign'}`;
}

/**
 * The testbed's own wiki pages on a share, read from its directory. Folders at the share's root named `_…` are
 * other test files' scratch trees, made and deleted while this walk runs (the parallel tier), so they are left out.
 */
async function wikiPages(dir: string, relative = ''): Promise<string[]> {
  const pages: string[] = [];
  for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    const scratch = relative === '' && entry.name.startsWith('_');
    if (entry.isDirectory() && !scratch) pages.push(...(await wikiPages(dir, child)));
    else if (entry.name.endsWith('.md') && relative.split('/').at(-1) === '.wiki') pages.push(child);
  }
  return pages;
}

describe('testbed SMB shares', () => {
  it('lists schule as anna with signing', async () => {
    const { code, output } = await smbclient('schule', 'anna', ['--client-protection=sign'], 'ls');
    assert.equal(code, 0, output);
    assert.match(output, /\.wiki\s+DH?\s/);
    assert.match(output, /Fachschaften\s+D\s/);
  });

  it('lists the encrypted share verwaltung as dora with encryption', async () => {
    const { code, output } = await smbclient('verwaltung', 'dora', ['--client-protection=encrypt'], 'ls');
    assert.equal(code, 0, output);
    assert.match(output, /Haushalt\s+D\s/);
  });

  it('refuses verwaltung to a client that cannot encrypt (SMB 2.1)', async () => {
    const { output } = await smbclient('verwaltung', 'dora', ['-m', 'SMB2_10'], 'ls');
    assert.match(output, /NT_STATUS_ACCESS_DENIED/);
  });

  it('gives each user only what the folder ACLs allow', async () => {
    const formulas = 'get "Fachschaften\\Mathe\\.wiki\\formeln.md" /dev/null';
    const staffRoom = 'ls "Lehrerzimmer\\*"';
    const cases = [
      { user: 'anna', command: formulas, allowed: true },
      { user: 'ben', command: formulas, allowed: false },
      { user: 'carla', command: formulas, allowed: false },
      { user: 'ben', command: staffRoom, allowed: true },
      { user: 'carla', command: staffRoom, allowed: false },
    ];
    for (const { user, command, allowed } of cases) {
      const { output } = await smbclient('schule', user, ['--client-protection=sign'], command);
      assert.equal(/NT_STATUS_ACCESS_DENIED/.test(output), !allowed, `${user}: ${command}\n${output}`);
    }
  });

  it('lets the indexer read every wiki page of every share', async () => {
    for (const share of env.smb.shares) {
      const pages = await wikiPages(share.path);
      assert.ok(pages.length >= 2, `${share.name} has only ${pages.length} wiki pages`);
      const commands = pages.map((page) => `get "${page.split('/').join('\\')}" /dev/null`).join('; ');
      const { code, output } = await smbclient(share.name, env.indexer.user, [shareProtection(share.name)], commands);
      assert.equal(code, 0, output);
      assert.doesNotMatch(output, /NT_STATUS_/, output);
    }
  });
});

describe('testbed NTLM mode', () => {
  it('the DC takes an NTLM logon only when env.json says NTLM is on, and the service config says the same', async () => {
    const connection = await Connection.connect({ host: env.smb.host, port: env.smb.port });
    try {
      const ntlm = Session.setup(connection, { domain: env.smb.domain, user: 'anna', password: env.users['anna']!.password });
      if (env.smb.ntlm === 'off') await assert.rejects(ntlm, /0xc0000418/, 'STATUS_NTLM_BLOCKED');
      else assert.equal((await ntlm).mechanism, 'ntlm');
    } finally {
      connection.close();
    }
    const { config } = loadConfig(env.config);
    assert.equal(config.smb.auth, env.smb.ntlm === 'off' ? 'kerberos' : 'negotiate');
    assert.equal(config.kerberos !== undefined, env.smb.ntlm === 'off', 'a kerberos section only when NTLM is off');
  });
});

describe('testbed service config', () => {
  it('loads with the service config loader and points at the testbed servers', () => {
    const { config, warnings } = loadConfig(env.config);
    assert.deepEqual(warnings, []);
    assert.equal(config.smb.server, env.smb.host);
    assert.deepEqual(config.smb.shares.map((share) => share.name), env.smb.shares.map((share) => share.name));
    assert.equal(config.ldap.url, env.ldap.url);
    assert.equal(config.ldap.tls?.ca_file, env.ldap.ca_file);
    assert.deepEqual(config.elasticsearch.nodes, [env.es.url]);
    assert.deepEqual(config.admin.groups, [env.admin.group]);
    assert.equal(readIndexerPassword(config), env.indexer.password);
  });
});

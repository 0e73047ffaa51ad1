// The testbed's contract with everyone else: .testbed/env.json, the service config pointing at the testbed,
// and the indexer's password file. `readTestbedEnv()` is what tests import.
import { readFile, writeFile, chmod, mkdir } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { DirectorySids } from './accounts.js';
import {
  accounts, admin, baseDn, dcAddress, dcAdmin, globalAdminGroup, indexer, ldapsUrl, netbiosDomain, realm,
} from './domain.js';
import { kerberosConfig } from './kerberos.js';
import { layout } from './layout.js';
import type { EsJit } from './elasticsearch.js';
import type { NtlmMode } from './ntlm-mode.js';
import { otherCheckoutsTestbeds } from './other-checkouts.js';
import { sharePath, testbedShares } from './shares.js';

export interface TestbedShare {
  name: string;
  path: string;
  encrypt: boolean;
}

export interface TestbedUser {
  password: string;
  groups: string[];
  sid: string;
}

export interface TestbedEnv {
  /** jit: the JIT of the testbed's node (`up --es-jit`), absent in an env.json written before it was recorded. */
  es: { url: string; jit?: EsJit };
  ldap: { url: string; base_dn: string; ca_file: string; server_name: string };
  /** ntlm: `off` when the file server refuses NTLM and everything logs on with Kerberos (`up --ntlm=off`). */
  smb: { host: string; port: number; domain: string; realm: string; shares: TestbedShare[]; ntlm: NtlmMode };
  samba: { conf: string };
  dc_admin: { user: string; password: string };
  admin: { user: string; password: string; group: string };
  indexer: { user: string; password: string; password_file: string };
  /** Every account the testbed created, including the admin and the indexer. */
  users: Record<string, TestbedUser>;
  /** Group name -> SID, including `Domain Users`. */
  groups: Record<string, string>;
  config: string;
  proxy: { url: string };
}

const upCommand = 'node dist/test/testbed/cli.js up';

export async function readTestbedEnv(): Promise<TestbedEnv> {
  let text: string;
  try {
    text = await readFile(layout.envFile, 'utf8');
  } catch {
    throw new Error(`${layout.envFile} is missing; start the testbed with \`${upCommand}\``);
  }
  const env = JSON.parse(text) as Partial<TestbedEnv>;
  const missing = (['es', 'ldap', 'smb', 'samba', 'dc_admin', 'admin', 'indexer', 'users', 'groups', 'config'] as const)
    .filter((key) => env[key] === undefined);
  if (missing.length > 0) {
    throw new Error(`${layout.envFile} lacks ${missing.join(', ')}; re-run \`${upCommand}\``);
  }
  const others = await otherCheckoutsTestbeds();
  if (others.length > 0) {
    throw new Error(`the testbed running is another checkout's (${others.join(', ')}), not this one's; take it over with \`${upCommand}\``);
  }
  return env as TestbedEnv;
}

export interface EnvInputs {
  sids: DirectorySids;
  ldapCaFile: string;
  ldapServerName: string;
  esUrl: string;
  esJit: EsJit;
  ntlm: NtlmMode;
}

const proxy = { host: '127.0.0.1', port: 8080 };

function buildEnv(inputs: EnvInputs): TestbedEnv {
  const users = Object.fromEntries(
    Object.entries(accounts).map(([name, spec]) => {
      const sid = inputs.sids.users[name];
      if (!sid) throw new Error(`no SID recorded for account ${name}`);
      return [name, { password: spec.password, groups: [...spec.groups], sid }];
    }),
  );
  return {
    es: { url: inputs.esUrl, jit: inputs.esJit },
    ldap: { url: ldapsUrl, base_dn: baseDn, ca_file: inputs.ldapCaFile, server_name: inputs.ldapServerName },
    smb: {
      host: dcAddress,
      port: 445,
      domain: netbiosDomain,
      realm,
      shares: testbedShares.map((share) => ({ name: share.name, path: sharePath(share.name), encrypt: share.encrypt })),
      ntlm: inputs.ntlm,
    },
    samba: { conf: layout.samba.conf },
    dc_admin: { user: dcAdmin.user, password: dcAdmin.password },
    admin: { user: admin.user, password: admin.password, group: globalAdminGroup },
    indexer: { user: indexer.user, password: indexer.password, password_file: layout.indexerSecretFile },
    users,
    groups: inputs.sids.groups,
    config: layout.configFile,
    proxy: { url: `http://${proxy.host}:${proxy.port}` },
  };
}

/**
 * The service configuration (shape owned by src/config/) pointing at the testbed's servers; in the NTLM-off mode
 * with smb.auth kerberos and the kerberos section, so that every service the tests start logs on with Kerberos alone.
 */
function buildConfig(env: TestbedEnv): unknown {
  const kerberosOnly = env.smb.ntlm === 'off';
  return {
    http: { host: proxy.host, port: proxy.port },
    smb: {
      server: env.smb.host,
      port: env.smb.port,
      domain: env.smb.domain,
      shares: env.smb.shares.map((share) => ({ name: share.name })),
      indexer_service_account: { user: env.indexer.user, password_file: env.indexer.password_file },
      ...(kerberosOnly ? { auth: 'kerberos' } : {}),
    },
    ...(kerberosOnly ? { kerberos: kerberosConfig } : {}),
    ldap: {
      url: env.ldap.url,
      base_dn: env.ldap.base_dn,
      tls: { ca_file: env.ldap.ca_file, server_name: env.ldap.server_name, reject_unauthorized: true },
    },
    admin: { user: env.admin.user, groups: [env.admin.group] },
    elasticsearch: { enabled: true, url: env.es.url },
    storage: { data_dir: layout.dataDir },
  };
}

/** Writes `content` unless the file already holds it; returns whether it changed. */
async function writeIfChanged(file: string, content: string, mode: number): Promise<boolean> {
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current !== content) await writeFile(file, content, { mode });
  // writeFile's mode applies only on creation; enforce it for files that already existed.
  await chmod(file, mode);
  return current !== content;
}

/** Writes env.json, config.yml and the indexer secret; returns the names of the files that changed. */
export async function writeTestbedFiles(inputs: EnvInputs): Promise<string[]> {
  const env = buildEnv(inputs);
  await mkdir(layout.dataDir, { recursive: true });
  const files: [string, string, number][] = [
    [layout.indexerSecretFile, `${indexer.password}\n`, 0o600],
    [layout.configFile, stringify(buildConfig(env)), 0o644],
    [layout.envFile, `${JSON.stringify(env, null, 2)}\n`, 0o644],
  ];
  const changed: string[] = [];
  for (const [file, content, mode] of files) {
    if (await writeIfChanged(file, content, mode)) changed.push(file);
  }
  return changed;
}

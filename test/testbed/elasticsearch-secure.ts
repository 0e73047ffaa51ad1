// An Elasticsearch node with security on, as a district's cluster runs it: HTTPS with a certificate of the testbed's
// own CA, and users to log on with (HTTP 9210, transport 9310, 512 MB heap), from the same install as the other
// nodes, for the secured-cluster tests only: `npm run testbed -- secure up` starts it on demand, `secure down` stops
// the node it started (by its pid file). Everything is made with the distribution's own tools and kept under
// .testbed/elasticsearch/secure/: the CA and the node's certificate (elasticsearch-certutil), the users of the
// file realm (elasticsearch-users) with passwords generated once, and the role the file proxy needs.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSearchClient } from '../../src/search/client.js';
import { exists, fileTail, readStateFile } from './files.js';
import { ensureInstalled, esHome, javaHome, launchNode, ownNodeFiles, runningNode, writeNodeConfig } from './elasticsearch.js';
import { layout } from './layout.js';
import { isPortOpen, run, stopProcess, waitUntil } from './processes.js';
import { note } from './progress.js';

const clusterName = 'fileproxy-testbed-secure';
const host = '127.0.0.1';
const httpPort = 9210;
const transportPort = 9310;
const dir = path.join(layout.elasticsearch.dir, 'secure');
const node = ownNodeFiles(dir, clusterName);
/** Inside the node's config dir: Elasticsearch reads TLS files only from there. */
const certsDir = path.join(node.confDir, 'certs');
const accountsFile = path.join(dir, 'accounts.json');

/** The role the file proxy's account and API keys get: cluster health and node info, and its own indices. */
export const SERVICE_ROLE = {
  cluster: ['monitor'],
  indices: [{ names: ['wiki-md*'], privileges: ['all'] }],
};

interface SecureAccount {
  username: string;
  password: string;
}

/** What a test needs to reach the secured node. */
export interface SecureNode {
  url: string;
  /** PEM of the CA that signed the node's certificate (a copy outside the ES user's config dir). */
  caFile: string;
  /** A superuser, for the tests' own setup and cleanup (creating API keys, deleting indices). */
  admin: SecureAccount;
  /** The file proxy's account: the role SERVICE_ROLE only. */
  service: SecureAccount;
}

const secureNodeUrl = `https://${host}:${httpPort}`;
const caFile = path.join(dir, 'ca.pem');

function runningSecureNode(): Promise<number | undefined> {
  return runningNode(node.pidFile);
}

/** Runs one of the distribution's command-line tools as root on the node's config (files are chowned at launch). */
async function esTool(tool: string, args: readonly string[]): Promise<void> {
  await run(path.join(esHome, 'bin', tool), args, {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ES_JAVA_HOME: await javaHome(), ES_PATH_CONF: node.confDir },
    timeoutMs: 2 * 60_000,
  });
}

/** The CA and the node's certificate for 127.0.0.1 and localhost, made once; unpacked into certs/ca and certs/node. */
async function ensureCertificates(): Promise<void> {
  if (!(await exists(path.join(certsDir, 'node', 'node.crt')))) {
    note('secure elasticsearch: making a CA and the node certificate with elasticsearch-certutil');
    const scratch = path.join(dir, 'certs-making');
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    await esTool('elasticsearch-certutil', ['ca', '--pem', '--silent', '--days', '3650', '--out', path.join(scratch, 'ca.zip')]);
    await run('unzip', ['-q', path.join(scratch, 'ca.zip'), '-d', scratch]);
    await esTool('elasticsearch-certutil', [
      'cert', '--pem', '--silent', '--days', '3650', '--name', 'node', '--ip', host, '--dns', 'localhost',
      '--ca-cert', path.join(scratch, 'ca', 'ca.crt'), '--ca-key', path.join(scratch, 'ca', 'ca.key'),
      '--out', path.join(scratch, 'node.zip'),
    ]);
    await run('unzip', ['-q', path.join(scratch, 'node.zip'), '-d', scratch]);
    await rm(path.join(scratch, 'ca.zip'));
    await rm(path.join(scratch, 'node.zip'));
    await rm(certsDir, { recursive: true, force: true });
    await rename(scratch, certsDir);
  }
  await copyFile(path.join(certsDir, 'ca', 'ca.crt'), caFile);
}

/**
 * The file realm's users, with passwords generated once and kept in accounts.json. The users files are made anew
 * with accounts.json (they hold nothing else) whenever either lacks them, so the two never disagree.
 */
async function ensureUsers(): Promise<{ admin: SecureAccount; service: SecureAccount }> {
  await writeFile(path.join(node.confDir, 'roles.yml'), `fileproxy: ${JSON.stringify(SERVICE_ROLE)}\n`);
  const known = await readStateFile<{ admin: SecureAccount; service: SecureAccount }>(accountsFile);
  const users = await readFile(path.join(node.confDir, 'users'), 'utf8').catch(() => '');
  if (known !== undefined && [known.admin, known.service].every(({ username }) => users.includes(`${username}:`))) return known;
  note('secure elasticsearch: adding the users with elasticsearch-users');
  const password = () => randomBytes(18).toString('base64url');
  const accounts = { admin: { username: 'testbed-admin', password: password() }, service: { username: 'fileproxy', password: password() } };
  await writeFile(path.join(node.confDir, 'users'), '');
  await writeFile(path.join(node.confDir, 'users_roles'), '');
  await esTool('elasticsearch-users', ['useradd', accounts.admin.username, '-p', accounts.admin.password, '-r', 'superuser']);
  await esTool('elasticsearch-users', ['useradd', accounts.service.username, '-p', accounts.service.password, '-r', 'fileproxy']);
  await writeFile(accountsFile, `${JSON.stringify(accounts, null, 2)}\n`, { mode: 0o600 });
  return accounts;
}

function writeSettings(): Promise<void> {
  const tls = (layer: 'http' | 'transport') => [
    `xpack.security.${layer}.ssl.enabled: true`,
    `xpack.security.${layer}.ssl.key: certs/node/node.key`,
    `xpack.security.${layer}.ssl.certificate: certs/node/node.crt`,
    `xpack.security.${layer}.ssl.certificate_authorities: [certs/ca/ca.crt]`,
  ];
  return writeNodeConfig(node, [
    `cluster.name: ${clusterName}`,
    'node.name: secure',
    'discovery.type: single-node',
    `network.host: ${host}`,
    `http.port: ${httpPort}`,
    `transport.port: ${transportPort}`,
    'xpack.security.enabled: true',
    ...tls('http'),
    ...tls('transport'),
  ]);
}

/** The secured node's health as its superuser sees it, or undefined while it does not answer. */
async function health(secure: SecureNode): Promise<string | undefined> {
  const client = createSearchClient({ nodes: [secure.url], auth: secure.admin, caCertificate: await readFile(secure.caFile, 'utf8') }, { requestTimeoutMs: 2000, maxRetries: 0 });
  try {
    return (await client.cluster.health()).status;
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}

/** The node's URL, CA and accounts; throws when the node was never set up (`secure up`). */
export async function secureNode(): Promise<SecureNode> {
  const accounts = await readStateFile<{ admin: SecureAccount; service: SecureAccount }>(accountsFile);
  if (accounts === undefined || !(await exists(caFile))) throw new Error('the secured Elasticsearch node was never set up; run `npm run testbed -- secure up`');
  return { url: secureNodeUrl, caFile, ...accounts };
}

/** Starts the node unless it runs and waits for it to answer over HTTPS; returns it and whether it was started now. */
export async function ensureSecureNodeRunning(): Promise<{ node: SecureNode; started: boolean }> {
  let started = false;
  if ((await runningSecureNode()) === undefined) {
    if (await isPortOpen(host, httpPort)) throw new Error(`port ${httpPort} on ${host} is in use by a process the testbed did not start`);
    await ensureInstalled();
    await writeSettings();
    await ensureCertificates();
    await ensureUsers();
    await launchNode(node);
    if ((await runningSecureNode()) === undefined) throw new Error(`the secured node wrote no usable pid file\n${await fileTail(node.log)}`);
    started = true;
  }
  const secure = await secureNode();
  await waitUntil('the secured Elasticsearch node green or yellow over HTTPS', async () => ['green', 'yellow'].includes((await health(secure)) ?? ''), 120_000, () => fileTail(node.log));
  return { node: secure, started };
}

export async function stopSecureNode(): Promise<string> {
  const pid = await runningSecureNode();
  return pid === undefined ? 'secured node not running' : `secured node pid ${pid} ${await stopProcess(pid)}`;
}

/** The line of `secure status`, and whether the node runs and answers. */
export async function secureNodeStatus(): Promise<{ text: string; up: boolean }> {
  const pid = await runningSecureNode();
  if (pid === undefined) return { text: `${secureNodeUrl}: down`, up: false };
  const status = await health(await secureNode());
  return { text: `${secureNodeUrl}: pid ${pid}, cluster ${status ?? 'not answering'}`, up: status === 'green' || status === 'yellow' };
}

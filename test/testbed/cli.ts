// node dist/test/testbed/cli.js up [--ntlm=on|off] [--es-jit=full|client]|down|status — the loopback Samba AD DC
// and Elasticsearch used by tests (`--ntlm=off`: the file server refuses NTLM, everything logs on with Kerberos; see
// ntlm-mode.ts; `--es-jit`: see EsJit in elasticsearch.ts);
// `cluster up|down|status` — the 3-node Elasticsearch cluster of the cluster tests, next to them, on demand;
// `secure up|down|status` — the Elasticsearch node with security on (HTTPS, users) of the secured-cluster tests;
// `small-queue up|down|status` — the Elasticsearch node with a write queue of one of the back-pressure test.
import { ensureAccounts, type DirectorySids } from './accounts.js';
import {
  clusterStatus, ensureElasticsearchRunning, esUrl, runningElasticsearch, stopElasticsearch, type EsJit,
} from './elasticsearch.js';
import { clusterHealth, clusterNodes, ensureClusterRunning, runningClusterNode, stopCluster } from './elasticsearch-cluster.js';
import { ensureSecureNodeRunning, secureNodeStatus, stopSecureNode } from './elasticsearch-secure.js';
import { ensureSmallQueueNodeRunning, smallQueueNodeStatus, smallQueueNodeUrl, stopSmallQueueNode } from './elasticsearch-small-queue.js';
import { writeTestbedFiles } from './env.js';
import { setNtlmRefused } from './kerberos.js';
import { layout } from './layout.js';
import { withLock } from './lock.js';
import type { NtlmMode } from './ntlm-mode.js';
import { parseUpOptions } from './up-options.js';
import { stopOtherCheckoutsTestbeds } from './other-checkouts.js';
import { ensurePackages } from './packages.js';
import { note, step } from './progress.js';
import {
  ensureDcAddressRecord, ensureProvisioned, ensureSambaRunning, ensureShareConfig, ldapTls, reloadSambaConfig, runningSamba, sambaPortsAnswer, stopSamba,
  type LdapTls,
} from './samba.js';
import { ensureSeeded } from './seed.js';

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function upSamba(ntlm: NtlmMode): Promise<{ sids: DirectorySids; tls: LdapTls }> {
  const provisioned = await step('samba: provision', ensureProvisioned);
  if (provisioned) note('samba: provisioned a new domain');
  const configChanged = await step('samba: share config', ensureShareConfig);
  const samba = await step('samba: start', ensureSambaRunning);
  note(`samba: ${samba.started ? 'started' : 'already running'}, pid ${samba.pid}`);
  if (configChanged && !samba.started) {
    await step('samba: reload changed config', reloadSambaConfig);
  }
  await step('samba: DNS name of the DC', ensureDcAddressRecord);
  const tls = await step('samba: LDAPS certificate', ldapTls);
  const accounts = await step('samba: users and groups', () => ensureAccounts(tls));
  if (!accounts.changed) note('samba: users and groups already in place');
  // Before the seeding, which logs on in the mode too.
  await step(`samba: NTLM ${ntlm === 'off' ? 'refused' : 'allowed'}`, () => setNtlmRefused(ntlm === 'off'));
  const seeded = await step('samba: seed shares', () => ensureSeeded(accounts.sids, ntlm));
  if (!seeded) note('samba: shares already seeded');
  return { sids: accounts.sids, tls };
}

async function upElasticsearch(jit: EsJit): Promise<void> {
  const es = await step('elasticsearch: start', () => ensureElasticsearchRunning(jit));
  note(`elasticsearch: ${es.started ? 'started' : 'already running'} with the ${jit} JIT, pid ${es.pid}`);
}

async function up(): Promise<number> {
  const { ntlm, esJit } = parseUpOptions(process.argv.slice(3));
  await step('packages', ensurePackages);
  await step('testbeds of other checkouts', stopOtherCheckoutsTestbeds);
  // The two servers are independent; starting them side by side halves a cold start. Both run to the end
  // so that one failing does not leave the other half-way with its output mixed into the error.
  const [samba, es] = await Promise.allSettled([upSamba(ntlm), upElasticsearch(esJit)]);
  const failures = [samba, es].flatMap((result) => (result.status === 'rejected' ? [message(result.reason)] : []));
  if (samba.status === 'rejected' || failures.length > 0) throw new Error(failures.join('\n'));
  const changed = await step('env files', () =>
    writeTestbedFiles({
      sids: samba.value.sids,
      ldapCaFile: samba.value.tls.caFile,
      ldapServerName: samba.value.tls.serverName,
      esUrl,
      esJit,
      ntlm,
    }),
  );
  note(changed.length > 0 ? `wrote ${changed.join(', ')}` : `${layout.envFile} unchanged`);
  note(`testbed is up${ntlm === 'off' ? ', NTLM refused: Kerberos only' : ''}`);
  return 0;
}

async function down(): Promise<number> {
  const results = await Promise.all([stopElasticsearch(), stopSamba()]);
  for (const result of results) note(result);
  return 0;
}

async function status(): Promise<number> {
  const [samba, es] = await Promise.all([runningSamba(), runningElasticsearch()]);
  const [portsAnswer, health] = await Promise.all([
    samba === undefined ? false : sambaPortsAnswer(),
    es === undefined ? undefined : clusterStatus(),
  ]);
  const sambaUp = samba !== undefined && portsAnswer;
  const esUp = health === 'green' || health === 'yellow';
  const sambaLine = samba === undefined ? 'down' : sambaUp ? `up (pid ${samba}, SMB 445 and LDAPS 636 answer)`
    : `down (pid ${samba} runs, but SMB 445 or LDAPS 636 does not answer)`;
  const esLine = es === undefined ? 'down' : esUp ? `up (pid ${es}, cluster ${health})`
    : `down (pid ${es} runs, cluster health ${health ?? 'unavailable'})`;
  process.stdout.write(`samba: ${sambaLine}\nelasticsearch: ${esLine}\n`);
  return sambaUp && esUp ? 0 : 1;
}

/** A server the tests start on demand: `<name> up|down|status`. */
interface OnDemandServer {
  up(): Promise<string>;
  down(): Promise<string[]>;
  status(): Promise<{ text: string; up: boolean }>;
}

const onDemand: Record<string, OnDemandServer> = {
  cluster: {
    async up() {
      const started = await step('elasticsearch cluster: start', ensureClusterRunning);
      return `elasticsearch cluster: ${clusterNodes.join(', ')} green; started now: ${started.length === 0 ? 'none' : started.map((i) => clusterNodes[i]).join(', ')}`;
    },
    down: () => stopCluster(),
    async status() {
      const pids = await Promise.all(clusterNodes.map((_, i) => runningClusterNode(i)));
      const health = await clusterHealth();
      return {
        text: `${clusterNodes.map((url, i) => `${url}: ${pids[i] === undefined ? 'down' : `pid ${pids[i]}`}`).join('\n')}\ncluster: ${health ? `${health.status}, ${health.number_of_nodes} nodes` : 'not answering'}`,
        up: pids.every((pid) => pid !== undefined) && health?.status === 'green',
      };
    },
  },
  secure: {
    async up() {
      const { node, started } = await step('secured elasticsearch: start', ensureSecureNodeRunning);
      return `secured elasticsearch: ${node.url} answers over HTTPS (${started ? 'started now' : 'already running'}); CA ${node.caFile}`;
    },
    down: async () => [await stopSecureNode()],
    status: secureNodeStatus,
  },
  'small-queue': {
    async up() {
      const { started } = await step('small-queue elasticsearch: start', ensureSmallQueueNodeRunning);
      return `small-queue elasticsearch: ${smallQueueNodeUrl} answers (${started ? 'started now' : 'already running'})`;
    },
    down: async () => [await stopSmallQueueNode()],
    status: smallQueueNodeStatus,
  },
};

async function runOnDemand(name: string): Promise<number> {
  const server = onDemand[name]!;
  const action = process.argv[3];
  if (action === 'up') {
    note(await server.up());
    return 0;
  }
  if (action === 'down') {
    for (const result of await server.down()) note(result);
    return 0;
  }
  if (action === 'status') {
    const { text, up } = await server.status();
    process.stdout.write(`${text}\n`);
    return up ? 0 : 1;
  }
  process.stderr.write(`usage: node dist/test/testbed/cli.js ${name} up|down|status (got "${action ?? ''}")\n`);
  return 2;
}

// up and down change the testbed and take turns; status only looks.
const commands: Record<string, () => Promise<number>> = {
  up: () => withLock(layout.lockFile, up),
  down: () => withLock(layout.lockFile, down),
  status,
  ...Object.fromEntries(Object.keys(onDemand).map((name) => [name, () => (process.argv[3] === 'status' ? runOnDemand(name) : withLock(layout.lockFile, () => runOnDemand(name)))])),
};

async function main(): Promise<void> {
  const name = process.argv[2] ?? '';
  const command = commands[name];
  if (!command) {
    process.stderr.write(`usage: node dist/test/testbed/cli.js up [--ntlm=on|off] [--es-jit=full|client]|down|status|cluster up|down|status|secure up|down|status|small-queue up|down|status (got "${name}")\n`);
    process.exitCode = 2;
    return;
  }
  try {
    process.exitCode = await command();
  } catch (err) {
    process.stderr.write(`testbed ${name} failed: ${message(err)}\n`);
    process.exitCode = 1;
  }
}

await main();

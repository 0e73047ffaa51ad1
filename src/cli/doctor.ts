// `fileproxy doctor --config <file>`: checks the installation, one line per
// check with a fix for each failure; exit 1 on any failure.
import { formatResult } from '../doctor/check.js';
import { runDoctor } from '../doctor/run.js';
import { configFileOf, type ConfigCommand } from './args.js';
import { versionLine } from './version.js';

const COMMAND: ConfigCommand = {
  name: 'doctor',
  description: `Names the version first (as fileproxy --version), then checks the installation, one line per check, "ok", "WARN" or "FAIL" with a line "fix: ..." under each warning and
failure: the config; the indexer secret file (present, mode 600, at most one trailing line break); ldap.base_dn and
an LDAPS bind as the indexer account; that the global-admin groups resolve; each SMB share readable by the indexer
account; that every Elasticsearch node answers, the cluster's health (yellow is a warning), that a node without TLS
and credentials listens on loopback only, and the alias (elasticsearch.index_prefix); whether the running proxies
that serve a share in common agree on cluster.shared_state, cluster.index_prefix, webhooks.dedupe_size and their
version (a warning names the two and the setting); at least 1.5 GB of free RAM. Run it as root or as the service user, so that it can read the secret file.`,
  exitStatus: '0 all checks passed, 1 a check failed, 2 bad command line.',
};

export async function runDoctorCommand(args: string[]): Promise<number> {
  const start = configFileOf(COMMAND, args);
  if ('exitCode' in start) return start.exitCode;
  const { file } = start;
  // First, so that a report pasted into a ticket says which version it checked.
  process.stdout.write(`${versionLine()}\n`);
  let failures = 0;
  for await (const result of runDoctor(file)) {
    if (result.status === 'fail') failures++;
    process.stdout.write(`${formatResult(result)}\n`);
  }
  process.stdout.write(failures === 0 ? 'all checks passed\n' : `${failures} check(s) failed\n`);
  return failures === 0 ? 0 : 1;
}

// `fileproxy serve --config <file>`: load the config, then run the supervisor
// until SIGTERM/SIGINT (exit 0 after draining) or an actor that keeps
// crashing (exit 1, so that systemd restarts the whole service).
import { StoppedWhileStarting, Supervisor } from '../../supervisor/supervisor.js';
import { ConfigError, loadConfig, readDelegationKeytab, readElasticsearchSecrets, readIndexerKeytab, readIndexerPassword, type Config } from '../config/index.js';
import { createLogger } from '../common/logger.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { configFileOf, type ConfigCommand } from './args.js';

const COMMAND: ConfigCommand = {
  name: 'serve',
  description: `Runs the service in the foreground: the HTTP server (WebDAV, wiki, webhook intake, admin API and page, health
and metrics) and its actor threads. Logs are JSON lines on stdout. SIGTERM or SIGINT drains the requests in
flight (supervisor.shutdown_timeout) and exits 0; an actor that keeps crashing (supervisor.max_restarts within
supervisor.restart_window) ends the service with 1, so that systemd restarts it as a whole. With the wiki on
(elasticsearch.enabled), the indexer account's password is read from smb.indexer_service_account.password_file,
which must be mode 600, and so must the files of elasticsearch.auth (a cluster with security on). On a packaged install, systemd runs it: systemctl start edu-fileproxy.`,
  exitStatus: '0 stopped by a signal, 1 bad config or secret, failed start or crashing actors, 2 bad command line.',
};

export async function runServe(args: string[]): Promise<number> {
  const start = configFileOf(COMMAND, args);
  if ('exitCode' in start) return start.exitCode;
  const { file } = start;
  let config: Config;
  let secrets: ServiceSecrets;
  let warnings: string[];
  try {
    ({ config, warnings } = loadConfig(file));
    // Only the wiki feature uses the indexer account, and delegation (whose rules it reads from the directory).
    const delegationKeytab = readDelegationKeytab(config);
    secrets = config.elasticsearch.enabled
      ? { indexerPassword: readIndexerPassword(config), indexerKeytab: readIndexerKeytab(config), elasticsearch: readElasticsearchSecrets(config) }
      : delegationKeytab ? { indexerPassword: readIndexerPassword(config) } : {};
    if (delegationKeytab) secrets.delegationKeytab = delegationKeytab;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\nnot starting.\n`);
    return 1;
  }
  const log = createLogger(config, { role: 'supervisor' });
  for (const warning of warnings) log.warn(warning);

  const supervisor = new Supervisor(config, secrets, log);
  const stop = (signal: string) => {
    log.info({ signal }, 'signal received');
    void supervisor.stop();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await supervisor.start();
  } catch (err) {
    // A signal during the start: the actors are stopping as asked, and the exit is that of a stop.
    if (err instanceof StoppedWhileStarting) return supervisor.done;
    log.fatal({ err }, 'startup failed');
    await supervisor.stop();
    return 1;
  }
  return supervisor.done;
}

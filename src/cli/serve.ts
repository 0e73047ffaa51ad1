// `fileproxy serve --config <file>`: load the config, then run the supervisor
// until SIGTERM/SIGINT (exit 0 after draining) or an actor that keeps
// crashing (exit 1, so that systemd restarts the whole service).
import { Supervisor } from '../../supervisor/supervisor.js';
import { ConfigError, loadConfig, readIndexerPassword, type Config } from '../config/index.js';
import { createLogger } from '../log.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { configFileArgument } from './args.js';

export async function runServe(args: string[]): Promise<number> {
  const file = configFileArgument(args);
  if (file === undefined) {
    process.stderr.write('usage: fileproxy serve [--config <file>]\n');
    return 2;
  }
  let config: Config;
  let secrets: ServiceSecrets;
  let warnings: string[];
  try {
    ({ config, warnings } = loadConfig(file));
    // Only the wiki feature uses the indexer account.
    secrets = config.elasticsearch.enabled ? { indexerPassword: readIndexerPassword(config) } : {};
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
    log.fatal({ err }, 'startup failed');
    await supervisor.stop();
    return 1;
  }
  return supervisor.done;
}

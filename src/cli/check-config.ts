// `fileproxy check-config [--config <file>]`: validates config.yml without starting anything.
// It does not read the indexer secret, so it also works on a machine that is not set up yet.
import { ConfigError, loadConfig } from '../config/index.js';
import { configFileOf, type ConfigCommand } from './args.js';

const COMMAND: ConfigCommand = {
  name: 'check-config',
  description: `Validates a config file without starting anything and without reading the indexer secret, so it also works
on a machine that is not set up yet (the systemd unit runs it before every start). A valid file prints
"OK <file>"; warnings (unknown keys, a config from before 1.1.7) go to stderr. An invalid one prints one line
per problem with its place and key, e.g. "config.yml:14 smb.shares[2].name: required".`,
  exitStatus: '0 valid, 1 invalid or unreadable, 2 bad command line.',
};

/** Exit code 0: valid (warnings may be printed), 1: invalid, 2: bad command line. */
export async function runCheckConfig(args: string[]): Promise<number> {
  const start = configFileOf(COMMAND, args);
  if ('exitCode' in start) return start.exitCode;
  const { file } = start;
  try {
    const { warnings } = loadConfig(file);
    process.stdout.write(`OK ${file}\n`);
    for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    for (const warning of error.warnings) process.stderr.write(`warning: ${warning}\n`);
    return 1;
  }
}

// `fileproxy check-config [--config <file>]`: validates config.yml without starting anything.
// It does not read the indexer secret, so it also works on a machine that is not set up yet.
import { ConfigError, loadConfig } from '../config/index.js';
import { configFileArgument, DEFAULT_CONFIG_FILE } from './args.js';

const USAGE = `usage: fileproxy check-config [--config <file>]   (default ${DEFAULT_CONFIG_FILE})`;

/** Exit code 0: valid (warnings may be printed), 1: invalid, 2: bad command line. */
export async function runCheckConfig(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const file = configFileArgument(args);
  if (file === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
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

// `fileproxy check-config [--config <file>]`: validates config.yml without starting anything.
// It does not read the indexer secret, so it also works on a machine that is not set up yet.
import { ConfigError, loadConfig } from '../config/index.js';

export const DEFAULT_CONFIG_FILE = '/etc/edu-fileproxy/config.yml';
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

/** The config file named by `--config <file>` or `--config=<file>`, the default without it, undefined on bad usage. */
function configFileArgument(args: readonly string[]): string | undefined {
  let file = DEFAULT_CONFIG_FILE;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config' && i + 1 < args.length && args[i + 1] !== '') file = args[++i]!;
    else if (arg.startsWith('--config=') && arg.length > '--config='.length) file = arg.slice('--config='.length);
    else return undefined;
  }
  return file;
}

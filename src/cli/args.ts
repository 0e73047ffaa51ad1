// Command-line arguments shared by the sub-commands.

export const DEFAULT_CONFIG_FILE = '/etc/edu-fileproxy/config.yml';

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

/** A command whose only option is --config, as its help describes it. */
export interface ConfigCommand {
  name: string;
  /** What it does, a paragraph. */
  description: string;
  /** What each exit status means, e.g. "0 valid, 1 invalid or unreadable, 2 bad command line." */
  exitStatus: string;
}

/**
 * The start of every command whose only option is --config: `--help` (or `-h`, alone) prints its help on stdout
 * (exit 0), a bad command line its usage on stderr (exit 2); otherwise the config file to run with.
 */
export function configFileOf(command: ConfigCommand, args: readonly string[]): { file: string } | { exitCode: 0 | 2 } {
  const usage = `usage: fileproxy ${command.name} [--config <file>]`;
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    const option = `  --config <file>  the service's config file (default ${DEFAULT_CONFIG_FILE}; also --config=<file>)`;
    process.stdout.write(`${usage}\n\n${command.description}\n\n${option}\n\nExit status: ${command.exitStatus}\n`);
    return { exitCode: 0 };
  }
  const file = configFileArgument(args);
  if (file === undefined) {
    process.stderr.write(`${usage}\n`);
    return { exitCode: 2 };
  }
  return { file };
}

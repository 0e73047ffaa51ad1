// Command-line arguments shared by the sub-commands.

export const DEFAULT_CONFIG_FILE = '/etc/edu-fileproxy/config.yml';

/** The config file named by `--config <file>` or `--config=<file>`, the default without it, undefined on bad usage. */
export function configFileArgument(args: readonly string[]): string | undefined {
  let file = DEFAULT_CONFIG_FILE;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config' && i + 1 < args.length && args[i + 1] !== '') file = args[++i]!;
    else if (arg.startsWith('--config=') && arg.length > '--config='.length) file = arg.slice('--config='.length);
    else return undefined;
  }
  return file;
}

/** True for `<command> --help` (or `-h`): the command prints its help on stdout and exits 0. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--help' || args[0] === '-h');
}

/** The --config option as every command's help describes it. */
export const CONFIG_OPTION_HELP = `  --config <file>  the service's config file (default ${DEFAULT_CONFIG_FILE}; also --config=<file>)`;

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

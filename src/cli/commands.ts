// The commands of `fileproxy` and their dispatch (src/cli/main.ts checks the Node.js version first). Each command's
// modules are loaded when it runs: the service's main thread then holds none of the doctor's or reindex's.
import { DEFAULT_CONFIG_FILE } from './args.js';
import { versionLine } from './version.js';

const USAGE = `usage: fileproxy <command> [options]

commands:
  serve --config <file>          run the service
  check-config --config <file>   validate a config file and exit
  doctor --config <file>         check the installation (directory, shares, search engine, RAM)
  reindex --share <name> | --all | --rebuild [--dry-run] [--json] [--config <file>]
                                 index shares again in the running service

fileproxy <command> --help describes a command, its options and exit status;
fileproxy --version (or -V) prints the version.
--config defaults to ${DEFAULT_CONFIG_FILE}.
`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  'serve': async () => (await import('./serve.js')).runServe,
  'check-config': async () => (await import('./check-config.js')).runCheckConfig,
  'doctor': async () => (await import('./doctor.js')).runDoctorCommand,
  'reindex': async () => (await import('./reindex.js')).runReindex,
};

/** Runs the command named by the first argument; resolves with the process exit code. */
export async function runCommandLine([name, ...args]: string[]): Promise<number> {
  const command = name === undefined ? undefined : commands[name];
  if (name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  if (!command) {
    process.stderr.write(name === undefined ? USAGE : `unknown command: ${name}\n\n${USAGE}`);
    return 2;
  }
  return (await command())(args);
}

// The commands of `fileproxy` and their dispatch (src/cli/main.ts checks the Node.js version first).
import { DEFAULT_CONFIG_FILE } from './args.js';
import { runCheckConfig } from './check-config.js';
import { runDoctorCommand } from './doctor.js';
import { runReindex } from './reindex.js';
import { runServe } from './serve.js';

const USAGE = `usage: fileproxy <command> [options]

commands:
  serve --config <file>          run the service
  check-config --config <file>   validate a config file and exit
  doctor --config <file>         check the installation (directory, shares, search engine, RAM)
  reindex --share <name> | --all | --rebuild [--dry-run] [--json] [--config <file>]
                                 index shares again in the running service

fileproxy <command> --help describes a command, its options and exit status.
--config defaults to ${DEFAULT_CONFIG_FILE}.
`;

const commands: Record<string, (args: string[]) => Promise<number>> = {
  'serve': runServe,
  'check-config': runCheckConfig,
  'doctor': runDoctorCommand,
  'reindex': runReindex,
};

/** Runs the command named by the first argument; resolves with the process exit code. */
export async function runCommandLine([name, ...args]: string[]): Promise<number> {
  const command = name === undefined ? undefined : commands[name];
  if (name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!command) {
    process.stderr.write(name === undefined ? USAGE : `unknown command: ${name}\n\n${USAGE}`);
    return 2;
  }
  return command(args);
}

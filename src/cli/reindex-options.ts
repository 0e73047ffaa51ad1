// The command line of `fileproxy reindex`.
import { DEFAULT_CONFIG_FILE } from './args.js';

export const REINDEX_USAGE = `usage: fileproxy reindex (--share <name> [--share <name> ...] | --all | --rebuild)
                        [--dry-run] [--json] [--config <file>]

Drives the running service: its reconciler reads and indexes the pages while the service keeps answering.
  --share <name>   every wiki page of this share (as named in smb.shares), written to the index again
  --all            the same for every share
  --rebuild        a new versioned index from every share; the alias switches to it at the end
  --dry-run        only report what would change
  --json           print the final report as JSON (no progress output)
  --config <file>  the service's config.yml (default ${DEFAULT_CONFIG_FILE}); its storage.data_dir has the socket
Ctrl-C stops the run; what was indexed until then stays.

Exit status: 0 done, 1 failed or no service running, 2 bad command line, 130 stopped with Ctrl-C.`;

export interface ReindexOptions {
  /** Share names, or every share. */
  shares: string[] | 'all';
  rebuild: boolean;
  dryRun: boolean;
  json: boolean;
  configFile: string;
}

type ParsedReindexArgs = { help: true } | { options: ReindexOptions } | { error: string };

export function parseReindexArgs(args: readonly string[]): ParsedReindexArgs {
  const shares: string[] = [];
  let all = false;
  const flags = { rebuild: false, dryRun: false, json: false };
  let configFile = DEFAULT_CONFIG_FILE;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? (i + 1 < args.length && !args[i + 1]!.startsWith('--') ? args[++i] : undefined);
    switch (name) {
      case '-h':
      case '--help':
        return { help: true };
      case '--share': {
        const share = value();
        if (share === undefined || share === '') return { error: '--share needs a share name' };
        shares.push(share);
        break;
      }
      case '--config': {
        const file = value();
        if (file === undefined || file === '') return { error: '--config needs a file' };
        configFile = file;
        break;
      }
      case '--all':
      case '--rebuild':
      case '--dry-run':
      case '--json':
        if (inline !== undefined) return { error: `${name} takes no value` };
        if (name === '--all') all = true;
        else flags[name === '--rebuild' ? 'rebuild' : name === '--dry-run' ? 'dryRun' : 'json'] = true;
        break;
      default:
        return { error: `unknown argument: ${arg}` };
    }
  }
  if (flags.rebuild && shares.length > 0) return { error: '--rebuild always rebuilds from every share; leave out --share' };
  if (all && shares.length > 0) return { error: 'give either --share or --all, not both' };
  if (!all && !flags.rebuild && shares.length === 0) return { error: 'name the shares: --share <name>, or --all' };
  return { options: { shares: shares.length > 0 ? shares : 'all', ...flags, configFile } };
}

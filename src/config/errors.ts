import { basename } from 'node:path';

/** One problem in a config file, located by line (1-based) and dotted key path. */
export interface ConfigIssue {
  line: number | undefined;
  /** Dotted key path with [i] for list items, e.g. `smb.shares[2].name`; empty for the whole file. */
  path: string;
  message: string;
}

/** Formats an issue as `config.yml:14 smb.shares[2].name: required` (file basename, line, path, message). */
export function formatIssue(file: string, issue: ConfigIssue): string {
  const where = issue.line === undefined ? basename(file) : `${basename(file)}:${issue.line}`;
  return issue.path === '' ? `${where}: ${issue.message}` : `${where} ${issue.path}: ${issue.message}`;
}

/** Turns a key path like ['smb', 'shares', 2, 'name'] into `smb.shares[2].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** A config file (or a file it points to) cannot be used; `message` lists every issue, one per line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    /** The file the issues are about. */
    readonly file: string,
    readonly issues: readonly ConfigIssue[],
    /** Warnings found alongside the issues (e.g. unknown keys, which often explain a missing one). */
    readonly warnings: readonly string[] = [],
    message = issues.map((issue) => formatIssue(file, issue)).join('\n'),
  ) {
    super(message);
  }
}

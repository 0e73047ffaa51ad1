import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { ConfigError, formatIssue, formatPath, type ConfigIssue } from './errors.js';
import { issueMessage } from './messages.js';
import { configSchema, type Config } from './schema.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

export interface LoadedConfig {
  /** The file as given to loadConfig. */
  file: string;
  config: Config;
  /** Formatted like issues (`config.yml:3 smb.sever: unknown key`); the service logs them at start. */
  warnings: string[];
}

const EXAMPLE_CONFIG = 'config/config.example.yml';

/** Reads and validates config.yml; throws ConfigError listing every problem with its line and key path. */
export function loadConfig(file: string): LoadedConfig {
  const source = parseYamlSource(readConfigText(file));
  if (!source.ok) throw new ConfigError(file, source.issues);
  const { data, lineOf } = source.source;
  if (data === undefined || data === null) {
    throw new ConfigError(file, [{ line: undefined, path: '', message: `file is empty (see ${EXAMPLE_CONFIG})` }]);
  }

  const first = configSchema.safeParse(data, { error: issueMessage });
  const unknownKeys = first.success ? [] : unknownKeyPaths(first.error.issues);
  const warnings = unknownKeys.map((path) => warning(file, lineOf(path), path, 'unknown key'));
  const problems = first.success ? [] : first.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
  if (problems.length > 0) {
    throw new ConfigError(file, locatedIssues(problems, lineOf), warnings);
  }
  // Unknown keys only warn: validate again without them.
  const parsed = first.success ? first : configSchema.safeParse(withoutPaths(data, unknownKeys), { error: issueMessage });
  if (!parsed.success) {
    throw new ConfigError(file, locatedIssues(parsed.error.issues, lineOf), warnings);
  }

  let config = parsed.data;
  if (config.ldap.base_dn === undefined) {
    warnings.push(
      warning(
        file,
        lineOf(['ldap', 'base_dn']),
        ['ldap', 'base_dn'],
        'NOT SET: wiki search will return NO hits, because group SIDs cannot be resolved and permission filtering is fail-closed; set it, e.g. base_dn: DC=schule,DC=local',
      ),
    );
  }
  if (isPre117Config(data)) {
    config = { ...config, elasticsearch: { ...config.elasticsearch, enabled: false } };
    warnings.push(
      warning(
        file,
        lineOf(['elasticsearch']),
        [],
        `config from before 1.1.7 (no smb.indexer_service_account and no elasticsearch block): the wiki feature is OFF, WebDAV works as before; to turn the wiki on copy the blocks smb.indexer_service_account and elasticsearch from ${EXAMPLE_CONFIG}`,
      ),
    );
  }
  return { file, config, warnings };
}

function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : String(error);
    throw new ConfigError(file, [{ line: undefined, path: '', message: `cannot read ${file}: ${reason}` }]);
  }
}

/** Neither block that 1.1.7 introduced is present: the operator has not taken over the new example yet. */
function isPre117Config(data: unknown): boolean {
  const root = data as { smb?: { indexer_service_account?: unknown }; elasticsearch?: unknown };
  return root.elasticsearch === undefined && root.smb?.indexer_service_account === undefined;
}

function unknownKeyPaths(issues: readonly z.core.$ZodIssue[]): PropertyKey[][] {
  return issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : []));
}

function withoutPaths(data: unknown, paths: readonly PropertyKey[][]): unknown {
  const copy = structuredClone(data);
  for (const path of paths) {
    let parent = copy as Record<PropertyKey, unknown>;
    for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<PropertyKey, unknown>;
    delete parent[path[path.length - 1]!];
  }
  return copy;
}

/** Issues in file order, so the output reads top to bottom. */
function locatedIssues(issues: readonly z.core.$ZodIssue[], lineOf: YamlSource['lineOf']): ConfigIssue[] {
  return issues
    .map((issue): ConfigIssue => ({ line: lineOf(issue.path), path: formatPath(issue.path), message: issue.message }))
    .sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

function warning(file: string, line: number | undefined, path: readonly PropertyKey[], message: string): string {
  return formatIssue(file, { line, path: formatPath(path), message });
}

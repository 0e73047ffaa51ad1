// What an answer to a caller without credentials must not say (/readyz, /healthz, a refused Negotiate token): the
// deployment's hosts, URLs, domain and realm, accounts and folders, taken from the testbed's own description.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import type { TestbedEnv } from '../testbed/env.js';

/** The testbed's names an anonymous caller has no business learning; `extra` adds a test's own (an SPN, a keytab). */
export function deploymentNames(env: TestbedEnv, extra: readonly string[] = []): string[] {
  return [
    env.es.url, env.ldap.url, env.ldap.server_name, env.smb.host, env.smb.realm, `${env.smb.domain}\\`,
    env.dc_admin.user, env.admin.user, env.indexer.user, ...Object.keys(env.users),
    env.ldap.ca_file, dirname(env.indexer.password_file), ...env.smb.shares.map((s) => s.path),
    ...extra,
  ];
}

/** An HTTP answer as the tests hold it: its headers and body. */
export interface Answer {
  headers: Iterable<[string, string]> | Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Fails naming every one of `names` found in the answer's headers or body (case-insensitive).
 */
export function assertNamesNone(what: string, answer: Answer, names: readonly string[]): void {
  const headers = Symbol.iterator in answer.headers ? [...answer.headers] : Object.entries(answer.headers);
  const text = `${headers.map(([name, value]) => `${name}: ${String(value)}`).join('\n')}\n\n${answer.body}`;
  const found = names.filter((name) => wholeWord(name).test(text));
  assert.deepEqual(found, [], `${what} names ${found.join(', ')}:\n${text}`);
}

/** `name` as a whole word, case-insensitive: the account `ben` is not found in "benign", `EDU\` is found in `EDU\anna`. */
function wholeWord(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${/^\w/.test(name) ? '(?<![\\w-])' : ''}${escaped}${/\w$/.test(name) ? '(?![\\w-])' : ''}`, 'i');
}

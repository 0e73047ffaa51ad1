/**
 * A seeded directory for the permission oracle: users and groups with nested membership, created on the testbed DC
 * over LDAPS as the DC Administrator (test/testbed/accounts.ts), all named with one prefix and deleted afterwards.
 */
import { Attribute, Change } from 'ldapts';
import { dcAdminClient, findByAccountName, newDn, sidOf, userAttributes } from '../../../testbed/accounts.js';
import type { TestbedEnv } from '../../../testbed/env.js';
import { AUTHENTICATED_USERS_SID, EVERYONE_SID } from '../../../../src/wiki/acl.js';
import { domainUsersSid } from '../../../../src/viewer/principal.js';

export interface OracleGroup {
  name: string;
  sid: string;
  /** Groups this group is a direct member of. */
  parents: string[];
}

export interface OracleUser {
  name: string;
  password: string;
  sid: string;
  /** Groups the account is a direct member of. */
  direct: string[];
  /** Every group the account is in, directly or through nesting (what `tokenGroups` lists, but Domain Users). */
  groups: string[];
  /** The SIDs the file server puts in the account's token: user, groups, Domain Users, Everyone, Authenticated Users. */
  token: ReadonlySet<string>;
}

export interface OracleDirectory {
  users: OracleUser[];
  groups: OracleGroup[];
  /** Deletes every account and group created. */
  remove(): Promise<void>;
}

/** `count` items drawn with `next`, no item twice (fewer when `items` has fewer). */
export function pick<T>(next: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) picked.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
  return picked;
}

/** The groups a member of `direct` is in: `direct` and all their ancestors. */
function closure(direct: readonly string[], parents: ReadonlyMap<string, readonly string[]>): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent);
  };
  direct.forEach(visit);
  return [...seen].sort();
}

/**
 * Creates `userCount` users and `groupCount` groups named `<prefix>u00…`, `<prefix>g00…`. A group after the first
 * three may be a member of one or two earlier groups (no cycles); each user is a direct member of one to three.
 */
export async function createDirectory(env: TestbedEnv, prefix: string, next: () => number, userCount: number, groupCount: number): Promise<OracleDirectory> {
  const tls = { caFile: env.ldap.ca_file, serverName: env.ldap.server_name };
  const groupNames = Array.from({ length: groupCount }, (_, i) => `${prefix}g${String(i).padStart(2, '0')}`);
  const parents = new Map<string, string[]>(
    groupNames.map((name, i) => {
      const roll = next();
      const count = i < 3 ? 0 : roll < 0.15 ? 2 : roll < 0.75 ? 1 : 0;
      return [name, pick(next, groupNames.slice(0, i), count)];
    }),
  );
  const specs = Array.from({ length: userCount }, (_, i) => ({
    name: `${prefix}u${String(i).padStart(2, '0')}`,
    password: `Orakel-${i}-Pass-2026!`,
    direct: pick(next, groupNames, 1 + Math.floor(next() * 3)).sort(),
  }));

  const created: string[] = [];
  const remove = async (): Promise<void> => {
    const client = await dcAdminClient(tls);
    try {
      for (const dn of created.reverse()) await client.del(dn).catch(() => undefined);
    } finally {
      await client.unbind();
    }
  };
  const client = await dcAdminClient(tls);
  try {
    for (const group of groupNames) {
      await client.add(newDn(group), { objectClass: 'group', sAMAccountName: group });
      created.push(newDn(group));
    }
    for (const spec of specs) {
      await client.add(newDn(spec.name), userAttributes(spec.name, spec.password));
      created.push(newDn(spec.name));
    }
    for (const group of groupNames) {
      const members = [
        ...groupNames.filter((child) => parents.get(child)!.includes(group)),
        ...specs.filter((spec) => spec.direct.includes(group)).map((spec) => spec.name),
      ];
      if (members.length === 0) continue;
      await client.modify(newDn(group), new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: members.map(newDn) }) }));
    }
    const entries = await findByAccountName(client, [...groupNames, ...specs.map((spec) => spec.name)]);
    const groupSid = new Map(groupNames.map((name) => [name, sidOf(entries, name)]));
    const users = specs.map((spec): OracleUser => {
      const sid = sidOf(entries, spec.name);
      const groups = closure(spec.direct, parents);
      const token = new Set([sid, ...groups.map((g) => groupSid.get(g)!), domainUsersSid(sid)!, EVERYONE_SID, AUTHENTICATED_USERS_SID]);
      return { ...spec, sid, groups, token };
    });
    const groups = groupNames.map((name) => ({ name, sid: groupSid.get(name)!, parents: parents.get(name)! }));
    return { users, groups, remove };
  } catch (error) {
    await remove();
    throw error;
  } finally {
    await client.unbind();
  }
}

/**
 * Accounts a test creates on the testbed DC for itself (a portal's service account, users to disable or move
 * between groups), over LDAPS as the DC Administrator, and deletes afterwards. Names carry the test's prefix.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { Attribute, Change, Client, InvalidCredentialsError } from 'ldapts';
import { baseDn, realm } from '../../testbed/domain.js';
import { layout } from '../../testbed/layout.js';
import { dcAdminClient, findByAccountName, newDn, sidOf, unicodePwd, userAttributes } from '../../testbed/accounts.js';
import type { TestbedEnv } from '../../testbed/env.js';

export interface ScratchAccount {
  name: string;
  password: string;
  sid: string;
}

/** ADS_UF_ACCOUNTDISABLE | ADS_UF_NORMAL_ACCOUNT. */
const DISABLED_ACCOUNT = '514';
/** ADS_UF_WORKSTATION_TRUST_ACCOUNT. */
const WORKSTATION_ACCOUNT = '4096';
/** 1970-01-01 in `accountExpires` ticks (100 ns since 1601): long past. */
const EXPIRED_LONG_AGO = '116444736000000000';
/** Wrong passwords that lock an account out under lockOut's password settings. */
const LOCKOUT_THRESHOLD = 2;
/** An hour, as AD's password settings count it (negative 100 ns ticks). */
const ONE_HOUR = '-36000000000';

export interface ScratchUserOptions {
  /** The explicit userPrincipalName: null for none (only the implicit `name@realm`); default `name@realm`. */
  userPrincipalName?: string | null;
  /** userAccountControl; default a normal enabled account (512). */
  userAccountControl?: number;
  /** adminCount, the mark AdminSDHolder leaves on a protected group's members; default none. */
  adminCount?: number;
}

export class ScratchAccounts {
  private readonly created: string[] = [];

  constructor(private readonly env: TestbedEnv) {}

  /** A new enabled account, a direct member of `groups` (testbed groups, or the domain's own in CN=Users). */
  async createUser(name: string, groups: readonly string[] = [], options: ScratchUserOptions = {}): Promise<ScratchAccount> {
    const password = `Scratch-${name}-2026!`;
    const attributes = userAttributes(name, password).flatMap((attribute) => {
      if (attribute.type === 'userPrincipalName') {
        const upn = options.userPrincipalName === undefined ? `${name}@${realm.toLowerCase()}` : options.userPrincipalName;
        return upn === null ? [] : [new Attribute({ type: attribute.type, values: [upn] })];
      }
      if (attribute.type === 'userAccountControl' && options.userAccountControl !== undefined) {
        return [new Attribute({ type: attribute.type, values: [String(options.userAccountControl)] })];
      }
      return [attribute];
    });
    if (options.adminCount !== undefined) attributes.push(new Attribute({ type: 'adminCount', values: [String(options.adminCount)] }));
    return this.withAdmin(async (client) => {
      await client.add(newDn(name), attributes);
      this.created.push(newDn(name));
      for (const group of groups) await client.modify(newDn(group), membership('add', name));
      return { name, password, sid: sidOf(await findByAccountName(client, [name]), name) };
    });
  }

  /** A new computer account `name$` (no password: nobody logs on with it here). */
  async createComputer(name: string): Promise<{ name: string }> {
    await this.withAdmin(async (client) => {
      await client.add(newDn(name), { objectClass: 'computer', sAMAccountName: `${name}$`, userAccountControl: WORKSTATION_ACCOUNT });
      this.created.push(newDn(name));
    });
    return { name: `${name}$` };
  }

  /**
   * Gives `name` this userPrincipalName in the DC's database file directly, past Samba's check that refuses a UPN
   * another account implies (`other@realm`), which Windows DCs do not make: so that a test can show what a
   * directory that allows it does. Samba reads the change on its next search.
   */
  async forceUserPrincipalName(name: string, userPrincipalName: string): Promise<void> {
    const partition = path.join(path.dirname(layout.samba.samDb), 'sam.ldb.d', `${baseDn.toUpperCase()}.ldb`);
    const script = [
      'import ldb, sys',
      'db = ldb.Ldb()',
      'db.connect("tdb://" + sys.argv[1], flags=ldb.FLG_DONT_CREATE_DB)',
      'message = ldb.Message(ldb.Dn(db, sys.argv[2]))',
      'message["userPrincipalName"] = ldb.MessageElement(sys.argv[3], ldb.FLAG_MOD_REPLACE, "userPrincipalName")',
      'db.modify(message)',
    ].join('\n');
    await promisify(execFile)('/usr/bin/python3', ['-c', script, partition, newDn(name), userPrincipalName]);
  }

  /** Gives `name` the sAMAccountName `newName`; its DN stays (CN=`name`), and with it what removeAll deletes. */
  async rename(name: string, newName: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(name), replace('sAMAccountName', newName)));
  }

  async disable(name: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(name), replace('userAccountControl', DISABLED_ACCOUNT)));
  }

  /** Lets the account's `accountExpires` pass (1970). */
  async expire(name: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(name), replace('accountExpires', EXPIRED_LONG_AGO)));
  }

  /** "User must change password at next logon" (`pwdLastSet` 0): the DC reports the password expired. */
  async expirePassword(name: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(name), replace('pwdLastSet', '0')));
  }

  /**
   * Locks the account out the way the DC does, by wrong passwords: password settings of its own (a fine-grained
   * password policy applying to this account only, lockout after LOCKOUT_THRESHOLD failures for an hour; the domain's
   * policy, which every other test logs on under, stays as it is), then that many failed binds.
   */
  async lockOut(name: string): Promise<void> {
    const settings = `CN=${name}-lockout,CN=Password Settings Container,CN=System,${baseDn}`;
    await this.withAdmin(async (client) => {
      await client.add(settings, {
        objectClass: 'msDS-PasswordSettings', 'msDS-PasswordSettingsPrecedence': '1', 'msDS-PasswordReversibleEncryptionEnabled': 'FALSE',
        'msDS-PasswordHistoryLength': '0', 'msDS-PasswordComplexityEnabled': 'FALSE', 'msDS-MinimumPasswordLength': '0',
        'msDS-MinimumPasswordAge': '0', 'msDS-MaximumPasswordAge': '-9223372036854775808', 'msDS-LockoutThreshold': String(LOCKOUT_THRESHOLD),
        'msDS-LockoutObservationWindow': ONE_HOUR, 'msDS-LockoutDuration': ONE_HOUR, 'msDS-PSOAppliesTo': [newDn(name)],
      });
      this.created.push(settings);
    });
    const ca = await readFile(this.env.ldap.ca_file);
    for (let attempt = 0; attempt < LOCKOUT_THRESHOLD; attempt++) {
      const client = new Client({ url: this.env.ldap.url, tlsOptions: { ca: [ca], servername: this.env.ldap.server_name } });
      await client.bind(`${name}@${realm.toLowerCase()}`, 'not-the-password').then(
        () => { throw new Error(`${name} logged on with a wrong password`); },
        (error: unknown) => { if (!(error instanceof InvalidCredentialsError)) throw error; },
      ).finally(() => client.unbind());
    }
  }

  /** Gives the account a new password, as an administrator resets it (its `pwdLastSet` changes). */
  async setPassword(name: string, password: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(name), new Change({
      operation: 'replace', modification: new Attribute({ type: 'unicodePwd', values: [unicodePwd(password)] }),
    })));
  }

  /** Deletes one account now (removeAll skips it then). */
  async remove(name: string): Promise<void> {
    await this.withAdmin((client) => client.del(newDn(name)));
  }

  async removeFromGroup(name: string, group: string): Promise<void> {
    await this.withAdmin((client) => client.modify(newDn(group), membership('delete', name)));
  }

  /** Deletes every account created (memberships go with them), and the password settings of lockOut. */
  async removeAll(): Promise<void> {
    await this.withAdmin(async (client) => {
      for (const dn of this.created.splice(0).reverse()) await client.del(dn).catch(() => undefined);
    });
  }

  /** One short session per operation: a test may run for longer than the DC keeps an idle connection. */
  private async withAdmin<T>(work: (client: Awaited<ReturnType<typeof dcAdminClient>>) => Promise<T>): Promise<T> {
    const client = await dcAdminClient({ caFile: this.env.ldap.ca_file, serverName: this.env.ldap.server_name });
    try {
      return await work(client);
    } finally {
      await client.unbind();
    }
  }
}

function replace(type: string, value: string): Change {
  return new Change({ operation: 'replace', modification: new Attribute({ type, values: [value] }) });
}

function membership(operation: 'add' | 'delete', user: string): Change {
  return new Change({ operation, modification: new Attribute({ type: 'member', values: [newDn(user)] }) });
}

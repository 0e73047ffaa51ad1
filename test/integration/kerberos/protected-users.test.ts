// A member of Protected Users under constrained delegation. Windows KDCs (Server 2012 R2 and later) never delegate for
// one: the S4U2Self ticket is not forwardable and S4U2Proxy is refused, which the client names. The testbed's Samba
// 4.17 (Debian 12) does not enforce the group and issues the ticket; so the service does not rely on the KDC: the
// trusted-caller rule (and, for Negotiate on /dav/, the ticket holder's check; negotiate.test.ts) refuses the user by
// group membership before any ticket is asked for.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { DelegationRefusedError } from '../../../src/kerberos/s4u.js';
import type { Directory } from '../../../src/ldap/directory.js';
import { CallerRoles, serviceUserRefusalMessage } from '../../../src/viewer/service-user.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, fileServerSpn, kdcSettings, protectedUser } from '../../testbed/kerberos.js';
import { testbedDirectory } from './config.js';

/** The DC's Samba release as `major.minor`. */
async function sambaRelease(): Promise<string> {
  const { stdout } = await promisify(execFile)('samba', ['--version']);
  return /Version (\d+\.\d+)/.exec(stdout)?.[1] ?? stdout.trim();
}

describe('Protected Users and delegation', () => {
  let env: TestbedEnv;
  let directory: Directory;
  before(async () => {
    env = await readTestbedEnv();
    await ensureDelegationAccounts();
    directory = testbedDirectory(env);
  });
  after(() => directory.close());

  it('the service\'s own check refuses a Protected Users member, read from the directory, naming the group', async () => {
    const user = await directory.lookupUser(protectedUser.user);
    assert.ok(user);
    const roles = new CallerRoles({ trustedCallers: new Set(), indexer: env.users[env.indexer.user]?.sid, admin: env.users[env.admin.user]?.sid, mayNameAdmins: false });
    assert.equal(roles.serviceUserRefusal(user, new Set()), 'protected_user');
    assert.match(serviceUserRefusalMessage(user.account, 'protected_user'), /geschuetzt is a member of Protected Users; a trusted caller may not call on behalf of it/);
    const ordinary = await directory.lookupUser('carla');
    assert.equal(roles.serviceUserRefusal(ordinary!, new Set()), null, 'a pupil may be named');
  });

  it('the KDC: Samba 4.17 delegates for a Protected Users member; a KDC that enforces the group is refused with the group named', async () => {
    const service = new KerberosClient(kdcSettings(), delegationAccount.user, { password: delegationAccount.password }, { forwardable: true });
    const outcome = await service.onBehalfOf(protectedUser.user).serviceTicket(fileServerSpn).catch((e: unknown) => e);
    if ((await sambaRelease()) === '4.17') {
      assert.ok(!(outcome instanceof Error), `Samba 4.17 issued no ticket: ${String(outcome)}`);
      assert.deepEqual((outcome as Awaited<ReturnType<typeof service.serviceTicket>>).client.names, [protectedUser.user]);
    } else {
      // Another release: if it now enforces the group, README ("Protected Users") says what it does.
      assert.ok(outcome instanceof DelegationRefusedError, 'this Samba release delegates for Protected Users: update README and this test');
      assert.equal(outcome.reason, 'user_not_delegable');
      assert.match(outcome.message, /Protected Users/);
    }
  });
});

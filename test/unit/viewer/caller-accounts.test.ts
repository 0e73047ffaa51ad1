// The accounts of the config as SIDs (CallerAccounts), against a scripted lookup; against the testbed DC:
// integration/wiki/trusted-callers ("configured by another spelling").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DirectoryError } from '../../../src/ldap/connection.js';
import type { LookedUpUser } from '../../../src/ldap/directory.js';
import { CallerAccounts, type CallerConfig } from '../../../src/viewer/caller-accounts.js';

const DOMAIN = 'S-1-5-21-10-20-30';
const SIDS: Record<string, string> = { portal: `${DOMAIN}-1201`, 'ix@elsewhere.example': `${DOMAIN}-1202`, fpadmin: `${DOMAIN}-1203` };
const CONFIG: CallerConfig = {
  trustedCallers: ['portal', 'OTHER\\fpadmin', 'niemand'], indexerAccount: 'ix@elsewhere.example', adminAccount: 'fpadmin', adminGroups: [],
  domain: { realm: 'schule.local', domain: 'SCHULE' }, mayNameAdmins: false,
};

function lookup() {
  const state = { down: false, asked: [] as string[] };
  const lookUp = async (name: string): Promise<LookedUpUser | null> => {
    state.asked.push(name);
    if (state.down) throw new DirectoryError('directory_unavailable', 'connect ECONNREFUSED');
    // The directory finds `DOMAIN\name` by the name alone, whatever the domain.
    const sid = SIDS[name.replace(/^[^\\]*\\/, '')];
    return sid === undefined ? null : { account: name, sid, groupSids: [], state: 'active', computer: false, notDelegated: false, adminCount: false };
  };
  return { state, lookUp };
}

describe('CallerAccounts', () => {
  it('resolves each configured account to its SID; an unknown name and one of another domain are no account', async () => {
    const { state, lookUp } = lookup();
    const roles = await new CallerAccounts(CONFIG, lookUp, 1_000).roles();
    assert.equal(roles.technicalRole(SIDS['portal']!), 'trusted_caller');
    assert.equal(roles.technicalRole(SIDS['ix@elsewhere.example']!), 'indexer');
    assert.equal(roles.isTrusted(SIDS['fpadmin']!), false, 'OTHER\\fpadmin is not the fpadmin of this domain');
    assert.equal(roles.technicalRole(SIDS['fpadmin']!), null);
    assert.ok(!state.asked.includes('OTHER\\fpadmin'), 'not even asked');
  });

  it('resolves again after the TTL; while the directory is down the last resolution holds; before any, its error', async () => {
    const clock = { now: 1_000 };
    const { state, lookUp } = lookup();
    const accounts = new CallerAccounts(CONFIG, lookUp, 1_000, () => clock.now);
    const first = await accounts.roles();
    assert.equal(await accounts.roles(), first);
    const asked = state.asked.length;
    clock.now += 1_001;
    state.down = true;
    assert.equal(await accounts.roles(), first, 'the last resolution');
    assert.ok(state.asked.length > asked, 'the directory was asked again');
    await assert.rejects(new CallerAccounts(CONFIG, lookUp, 1_000).roles(), DirectoryError);
  });
});

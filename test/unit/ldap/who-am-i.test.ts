// The reading of LDAP "Who am I?" answers (RFC 4532) after a user's bind. Windows DCs answer it (`u:DOMAIN\account`
// or `dn:<dn>`); the testbed's Samba does not, so its integration tests take the token fallback and only this test
// reads the Windows forms. The client is a stand-in that answers what a DC would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Client, ProtocolError } from 'ldapts';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { authzIdFilter, Directory } from '../../../src/ldap/directory.js';
import { encodeSid } from '../../../src/windows-security/sid.js';

const ANNA_SID = 'S-1-5-21-1-2-3-1104';

describe('authzIdFilter', () => {
  it('finds a u: answer by sAMAccountName, with or without the domain', () => {
    assert.equal(authzIdFilter('u:EDU\\anna').toString(), '(sAMAccountName=anna)');
    assert.equal(authzIdFilter('u:edu.test\\A.Mueller').toString(), '(sAMAccountName=A.Mueller)');
    assert.equal(authzIdFilter('u:anna').toString(), '(sAMAccountName=anna)');
    assert.equal(authzIdFilter('U:EDU\\anna').toString(), '(sAMAccountName=anna)', 'the prefix in any case');
  });

  it('finds a dn: answer by its DN, escaped as a value', () => {
    assert.equal(authzIdFilter('dn:CN=Anna Müller,OU=Lehrer,DC=edu,DC=test').toString(), '(distinguishedName=CN=Anna Müller,OU=Lehrer,DC=edu,DC=test)');
    assert.equal(authzIdFilter('DN:CN=a*)(x=y,DC=edu').toString(), '(distinguishedName=CN=a\\2a\\29\\28x=y,DC=edu)');
  });

  it('takes an answer that names nobody for the directory failing (503), never for a login', () => {
    for (const answer of ['', 'dn:', 'u:', 'anna', 'x:EDU\\anna']) {
      assert.throws(() => authzIdFilter(answer), (err: unknown) => err instanceof DirectoryError && err.kind === 'directory_unavailable', JSON.stringify(answer));
    }
  });
});

describe('Directory.authenticateUser after the bind', () => {
  /** A client bound as anna whose DC answers "Who am I?" with `whoAmI` (a ProtocolError where it lacks the operation). */
  function dc(whoAmI: string | ProtocolError) {
    const searches: { base: string; filter: string }[] = [];
    const client = {
      bind: async () => undefined,
      unbind: async () => undefined,
      exop: async () => {
        if (whoAmI instanceof ProtocolError) throw whoAmI;
        return { value: whoAmI };
      },
      search: async (base: string, options: { filter: { toString(): string } }) => {
        searches.push({ base, filter: options.filter.toString() });
        if (base === '') return { searchEntries: [{ dn: '', tokenGroups: [encodeSid(ANNA_SID)] }] };
        if (base.startsWith('CN=anna')) return { searchEntries: [{ dn: base, tokenGroups: [] }] };
        return { searchEntries: [{ dn: 'CN=anna,CN=Users,DC=edu,DC=test', objectSid: encodeSid(ANNA_SID), sAMAccountName: 'anna' }] };
      },
    };
    const directory = new Directory(() => client as unknown as Client, { baseDn: 'DC=edu,DC=test', domain: 'EDU' });
    return { directory, searches };
  }

  it('reads the entry "Who am I?" names, not one the login name would find', async () => {
    const { directory, searches } = dc('u:EDU\\anna');
    const user = await directory.authenticateUser('a.mueller@schule.de', 'pw');
    assert.equal(user.account, 'anna');
    assert.equal(user.sid, ANNA_SID);
    assert.equal(searches[0]!.filter, '(&(objectClass=user)(sAMAccountName=anna))');
  });

  it('falls back to the connection\'s token where the DC lacks the operation', async () => {
    const { directory, searches } = dc(new ProtocolError('not supported'));
    assert.equal((await directory.authenticateUser('anna', 'pw')).account, 'anna');
    assert.equal(searches[0]!.base, '', 'the root DSE\'s tokenGroups first');
    assert.equal(searches[1]!.filter, `(&(objectClass=user)(objectSid=${escapedSid(ANNA_SID)}))`);
  });

  it('an answer that names nobody is a 503, not a login of someone else', async () => {
    const { directory } = dc('');
    await assert.rejects(directory.authenticateUser('anna', 'pw'), (err: unknown) => err instanceof DirectoryError && err.kind === 'directory_unavailable');
  });
});

/** A SID's binary form as a filter's string form escapes it. */
function escapedSid(sid: string): string {
  return [...encodeSid(sid)].map((byte) => `\\${byte.toString(16).padStart(2, '0')}`).join('');
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { boundLoginBudget, budgetUserPart, characterCount, loginBudget, namesAccount, ntlmLogon, parseLoginName, realmFromBaseDn } from '../../../src/ldap/login-name.js';

const EDU = { realm: 'edu.test', domain: 'EDU' };

describe('parseLoginName', () => {
  it('binds a bare name as its implicit UPN', () => {
    assert.deepEqual(parseLoginName('anna', EDU), { bindName: 'anna@edu.test', account: 'anna' });
  });

  it('binds DOMAIN\\user as given and looks it up by the account part', () => {
    assert.deepEqual(parseLoginName('EDU\\anna', EDU), { bindName: 'EDU\\anna', account: 'anna', domainPart: 'EDU' });
  });

  it('binds a UPN as given; in this realm it may also be the account name', () => {
    assert.deepEqual(parseLoginName('anna@EDU.TEST', EDU), {
      bindName: 'anna@EDU.TEST',
      account: 'anna',
      userPrincipalName: 'anna@EDU.TEST',
    });
    assert.deepEqual(parseLoginName('anna@other.org', EDU), {
      bindName: 'anna@other.org',
      userPrincipalName: 'anna@other.org',
    });
  });

  it('refuses a DOMAIN\\user whose DOMAIN is neither the NetBIOS nor the DNS name of this domain', () => {
    // Samba logs FOO\anna on as EDU\anna: each spelling was a principal of its own (issue 41).
    for (const name of ['FOO\\anna', 'BAR\\anna', 'EDUX\\anna', 'other.org\\anna', 'test\\anna']) {
      assert.throws(() => parseLoginName(name, EDU), (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials' && /not this service's/.test(err.message), name);
    }
    for (const name of ['edu\\anna', 'EDU\\anna', 'Edu.Test\\anna']) assert.equal(parseLoginName(name, EDU).account, 'anna', name);
    assert.deepEqual(parseLoginName('anna@other.org', EDU).userPrincipalName, 'anna@other.org', 'a UPN may carry any suffix');
  });

  for (const bad of ['', '  ', 'a\\b\\c', 'a@b@c', 'EDU\\a@b', '\\anna', 'anna@', 'CN=anna,DC=edu', 'an\u0000na', 'x'.repeat(300)]) {
    it(`refuses ${JSON.stringify(bad.slice(0, 20))} as invalid credentials`, () => {
      assert.throws(
        () => parseLoginName(bad, EDU),
        (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials',
      );
    });
  }
});

describe('one reading of a login name for the logon and the failure budget', () => {
  const where = { realm: 'edu.test', domain: 'EDU' };
  it('every spelling with the account name spends its budget; a principal name is left whole, for the directory to map', () => {
    for (const name of ['dora', 'DORA', ' Dora ', 'EDU\\dora', 'edu\\Dora', 'edu.test\\dora']) {
      assert.equal(loginBudget(name), 'dora', name);
    }
    // An explicit UPN need not carry its account's name (a.mueller@schule.de of anna): src/auth/login-accounts.ts.
    for (const name of ['dora@edu.test', 'Dora@EDU.TEST', ' dora@edu.test ']) assert.equal(loginBudget(name), 'dora@edu.test', name);
    assert.equal(loginBudget('A.Mueller@Schule.DE'), 'a.mueller@schule.de');
    assert.equal(budgetUserPart(loginBudget('Dora@other.org')), 'dora', 'the budget where no directory tells the account');
    assert.equal(budgetUserPart(loginBudget('EDU\\Dora')), 'dora');
  });

  it('counts an LDAP login under the name as bound: a bare name as its implicit UPN, for the directory to map', () => {
    assert.equal(boundLoginBudget(parseLoginName(' Dora ', where)), 'dora@edu.test');
    assert.equal(boundLoginBudget(parseLoginName('EDU\\Dora', where)), 'dora');
    assert.equal(boundLoginBudget(parseLoginName('A.Mueller@Schule.DE', where)), 'a.mueller@schule.de');
  });

  it('logs on over SMB as the account the budget is counted for', () => {
    for (const name of ['dora', 'EDU\\dora', 'dora@edu.test']) {
      const logon = ntlmLogon(parseLoginName(name, where), where);
      assert.equal(logon.user.toLowerCase(), loginBudget(name), name);
    }
    assert.deepEqual(ntlmLogon(parseLoginName('dora', where), where), { domain: 'EDU', user: 'dora' });
    assert.deepEqual(ntlmLogon(parseLoginName('dora@edu.test', where), where), { domain: '', user: 'dora@edu.test' });
    for (const name of ['edu.test\\dora', 'edu\\dora', 'EDU\\dora']) {
      assert.deepEqual(ntlmLogon(parseLoginName(name, where), where), { domain: 'EDU', user: 'dora' }, `${name}: one pooled session with EDU\\dora`);
    }
  });

  it('refuses, before anything is counted, a name the logon could read as another account than the budget', () => {
    // main at b8fc48f logged on as dora and counted the failure under s1.
    for (const name of ['EDU\\dora\\s1', 'EDU\\dora@s1', 'dora@edu@s1', '\\dora', 'dora@']) {
      assert.throws(() => loginBudget(name), (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials', name);
    }
  });

  it('counts length in characters, as X-Service-User and X-Service-Groups do', () => {
    const emoji = '\u{1F600}'.repeat(200);
    assert.equal(characterCount(emoji), 200);
    assert.equal(loginBudget(emoji), emoji, '200 characters (400 UTF-16 units) are within the 256');
    assert.throws(() => loginBudget('\u{1F600}'.repeat(257)), DirectoryError);
  });
});

describe('realmFromBaseDn', () => {
  it('joins the DC parts', () => {
    assert.equal(realmFromBaseDn('DC=edu,DC=test'), 'edu.test');
    assert.equal(realmFromBaseDn('OU=Schule, dc=schule ,dc=example,dc=org'), 'schule.example.org');
  });
  it('is undefined without DC parts', () => {
    assert.equal(realmFromBaseDn('O=school'), undefined);
  });
});

describe('namesAccount', () => {
  const where = { realm: 'edu.test', domain: 'EDU' };
  for (const name of ['anna', 'ANNA', ' Anna ', 'EDU\\anna', 'edu\\Anna', 'edu.test\\anna', 'anna@edu.test', 'Anna@EDU.TEST']) {
    it(`${JSON.stringify(name)} names the account anna`, () => assert.equal(namesAccount(name, 'anna', where), true));
  }
  for (const name of ['bob', 'annabel', 'OTHER\\anna', 'anna@other.org', 'anna.b@edu.test', 'EDU\\anna@edu.test', '', 'anna\u0000']) {
    it(`${JSON.stringify(name)} does not name the account anna`, () => assert.equal(namesAccount(name, 'anna', where), false));
  }
});

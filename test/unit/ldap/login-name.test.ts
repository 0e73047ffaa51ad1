import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { namesAccount, parseLoginName, realmFromBaseDn } from '../../../src/ldap/login-name.js';

describe('parseLoginName', () => {
  it('binds a bare name as its implicit UPN', () => {
    assert.deepEqual(parseLoginName('anna', 'edu.test'), { bindName: 'anna@edu.test', account: 'anna' });
  });

  it('binds DOMAIN\\user as given and looks it up by the account part', () => {
    assert.deepEqual(parseLoginName('EDU\\anna', 'edu.test'), { bindName: 'EDU\\anna', account: 'anna' });
  });

  it('binds a UPN as given; in this realm it may also be the account name', () => {
    assert.deepEqual(parseLoginName('anna@EDU.TEST', 'edu.test'), {
      bindName: 'anna@EDU.TEST',
      account: 'anna',
      userPrincipalName: 'anna@EDU.TEST',
    });
    assert.deepEqual(parseLoginName('anna@other.org', 'edu.test'), {
      bindName: 'anna@other.org',
      userPrincipalName: 'anna@other.org',
    });
  });

  for (const bad of ['', '  ', 'a\\b\\c', 'a@b@c', 'EDU\\a@b', '\\anna', 'anna@', 'CN=anna,DC=edu', 'an\u0000na', 'x'.repeat(300)]) {
    it(`refuses ${JSON.stringify(bad.slice(0, 20))} as invalid credentials`, () => {
      assert.throws(
        () => parseLoginName(bad, 'edu.test'),
        (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials',
      );
    });
  }
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

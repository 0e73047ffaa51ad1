import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHENTICATED_USERS_SID, EVERYONE_SID } from '../../../src/wiki/acl.js';
import {
  domainUsersSid,
  GroupsHeaderError,
  parseServiceGroupsHeader,
  userSidSet,
  type GroupsHeaderProblem,
} from '../../../src/viewer/principal.js';

function problemOf(value: string, limits?: { maxGroups: number; maxNameLength: number }): GroupsHeaderProblem {
  try {
    parseServiceGroupsHeader(value, limits);
  } catch (error) {
    assert.ok(error instanceof GroupsHeaderError);
    assert.match(error.message, /^X-Service-Groups: /);
    return error.problem;
  }
  assert.fail(`'${value}' was accepted`);
}

describe('X-Service-Groups header', () => {
  it('splits on commas, trims and percent-decodes UTF-8', () => {
    assert.deepEqual(parseServiceGroupsHeader(' Lehrer ,Fachschaft%20Deutsch,\tSch%C3%BCler'), [
      'Lehrer',
      'Fachschaft Deutsch',
      'Schüler',
    ]);
  });

  it('keeps an encoded comma and a literal plus inside a name', () => {
    assert.deepEqual(parseServiceGroupsHeader('AG%2C%20Theater,C++'), ['AG, Theater', 'C++']);
  });

  it('skips empty entries and repeats', () => {
    assert.deepEqual(parseServiceGroupsHeader('Lehrer,,Lehrer, ,'), ['Lehrer']);
    assert.deepEqual(parseServiceGroupsHeader(''), []);
    assert.deepEqual(parseServiceGroupsHeader(undefined), []);
  });

  it('rejects malformed percent escapes', () => {
    assert.equal(problemOf('Lehrer,Sch%zzler'), 'bad_percent_escape');
    assert.equal(problemOf('Lehrer%2'), 'bad_percent_escape');
    assert.equal(problemOf('100%'), 'bad_percent_escape');
  });

  it('rejects bytes that are not UTF-8', () => {
    assert.equal(problemOf('Sch%C3%28ler'), 'invalid_utf8');
    assert.equal(problemOf('Sch%FCler'), 'invalid_utf8');
    assert.equal(problemOf('%ED%A0%80'), 'invalid_utf8');
  });

  it('rejects raw non-ASCII and decoded control characters', () => {
    assert.equal(problemOf('Schüler'), 'non_ascii');
    assert.equal(problemOf('Lehrer\nX'), 'non_ascii');
    assert.equal(problemOf('Lehrer%0AX'), 'control_character');
    assert.equal(problemOf('Lehrer%00'), 'control_character');
  });

  it('limits the number of groups', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `g${i}`).join(',');
    assert.equal(parseServiceGroupsHeader(hundred).length, 100);
    assert.equal(problemOf(`${hundred},g100`), 'too_many_groups');
    assert.equal(problemOf('a,b,c', { maxGroups: 2, maxNameLength: 256 }), 'too_many_groups');
  });

  it('limits the length of a decoded name in characters', () => {
    assert.equal(parseServiceGroupsHeader('%C3%BC'.repeat(256))[0]!.length, 256);
    assert.equal(problemOf('%C3%BC'.repeat(257)), 'name_too_long');
    assert.equal(problemOf('abcd', { maxGroups: 100, maxNameLength: 3 }), 'name_too_long');
  });
});

describe('userSidSet', () => {
  const user = 'S-1-5-21-1-2-3-1201';
  const teachers = 'S-1-5-21-1-2-3-1101';

  it('adds the user, Everyone and Authenticated Users to the resolved groups', () => {
    assert.deepEqual(userSidSet({ userSid: user, groupSids: [teachers] }), [user, teachers, EVERYONE_SID, AUTHENTICATED_USERS_SID]);
  });

  it('works without a user SID and removes repeats', () => {
    assert.deepEqual(userSidSet({ groupSids: [teachers, teachers, EVERYONE_SID] }), [teachers, EVERYONE_SID, AUTHENTICATED_USERS_SID]);
  });

  it('is empty when no group resolved, even with a user SID (fail-closed)', () => {
    assert.deepEqual(userSidSet({ userSid: user, groupSids: [] }), []);
  });
});

describe('domainUsersSid', () => {
  it('is RID 513 of the account\'s own domain', () => {
    assert.equal(domainUsersSid('S-1-5-21-1004336348-1177238915-682003330-1105'), 'S-1-5-21-1004336348-1177238915-682003330-513');
  });

  it('is null for SIDs that are not domain accounts', () => {
    assert.equal(domainUsersSid('S-1-5-18'), null);
    assert.equal(domainUsersSid('S-1-5-32-544'), null);
    assert.equal(domainUsersSid('S-1-5-21-1-2-1105'), null);
  });
});

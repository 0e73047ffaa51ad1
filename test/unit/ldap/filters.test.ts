import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BerReader, BerWriter, EqualityFilter, FilterParser } from 'ldapts';
import { allOf, equals, equalsAny } from '../../../src/ldap/filters.js';

describe('LDAP filters', () => {
  it('escapes filter syntax in values per RFC 4515 in the string form', () => {
    const filter = allOf(equals('objectClass', 'group'), equalsAny('sAMAccountName', ['*)(cn=*', 'a\\b', 'Lehrer Süd', 'n\u0000ul']));
    assert.equal(
      filter.toString(),
      '(&(objectClass=group)(|(sAMAccountName=\\2a\\29\\28cn=\\2a)(sAMAccountName=a\\5cb)(sAMAccountName=Lehrer Süd)(sAMAccountName=n\\00ul)))',
    );
  });

  it('sends an injection attempt as one literal value on the wire', () => {
    const writer = new BerWriter();
    equals('cn', '*)(cn=*').write(writer);
    const parsed = FilterParser.parse(new BerReader(writer.buffer));
    assert.ok(parsed instanceof EqualityFilter);
    assert.equal(parsed.attribute, 'cn');
    assert.equal(String(parsed.value), '*)(cn=*');
  });

  it('a single value needs no OR', () => {
    assert.equal(equalsAny('cn', ['x']).toString(), '(cn=x)');
  });

  it('binary values are hex-escaped', () => {
    assert.equal(equals('objectSid', Buffer.from([1, 0x2a, 0xff])).toString(), '(objectSid=\\01\\2a\\ff)');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBasicAuth } from '../../../src/auth/basic.js';

const basic = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

describe('parseBasicAuth', () => {
  it('parses user and password; the password may contain colons and non-ASCII', () => {
    assert.deepEqual(parseBasicAuth(basic('fpadmin:pa:ss wörd')), { ok: true, user: 'fpadmin', password: 'pa:ss wörd' });
    assert.deepEqual(parseBasicAuth(`basic   ${Buffer.from('EDU\\anna:x').toString('base64')}`), {
      ok: true,
      user: 'EDU\\anna',
      password: 'x',
    });
  });

  const cases: [string | undefined, string, RegExp][] = [
    [undefined, 'missing', /missing/],
    ['  ', 'missing', /missing/],
    ['Bearer abc', 'not_basic', /Basic scheme/],
    ['Basic', 'not_basic', /Basic scheme/],
    ['Basic a b', 'not_basic', /Basic scheme/],
    ['Basic !!!!', 'malformed', /base64/],
    ['Basic YWJj', 'malformed', /user:password/],
    [basic(':secret'), 'malformed', /empty user/],
    [`Basic ${Buffer.from([0x61, 0x3a, 0xff]).toString('base64')}`, 'malformed', /UTF-8/],
  ];
  for (const [header, error, message] of cases) {
    it(`${JSON.stringify(header)} → ${error}`, () => {
      const result = parseBasicAuth(header);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error, error);
        assert.match(result.message, message);
      }
    });
  }
});

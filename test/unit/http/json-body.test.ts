import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkJsonObjectBody } from '../../../src/http/json-body.js';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

function errorOf(contentType: string | undefined, body: Uint8Array | string) {
  const result = checkJsonObjectBody(contentType, body);
  return result.ok ? assert.fail('expected a rejection') : result.error;
}

describe('checkJsonObjectBody', () => {
  it('accepts a JSON object with application/json, with or without a UTF-8 charset', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"']) {
      const result = checkJsonObjectBody(type, json({ username: 'anna', n: 1 }));
      assert.ok(result.ok, type);
      assert.deepEqual(result.object, { username: 'anna', n: 1 });
    }
  });

  it('accepts an ArrayBuffer body as handed over by the HTTP server', () => {
    const bytes = json({ a: 'ü' });
    const result = checkJsonObjectBody('application/json', bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    assert.ok(result.ok);
    assert.deepEqual(result.object, { a: 'ü' });
  });

  for (const type of [undefined, '', 'text/plain', 'application/jsonx', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1']) {
    it(`415 for Content-Type ${JSON.stringify(type)}`, () => {
      const error = errorOf(type, json({}));
      assert.equal(error.status, 415);
      assert.equal(error.code, 'unsupported_media_type');
    });
  }

  for (const [label, body] of [
    ['empty', ''],
    ['truncated', '{"a":'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ] as const) {
    it(`400 invalid_json for a ${label} body`, () => {
      const error = errorOf('application/json', body);
      assert.equal(error.status, 400);
      assert.equal(error.code, 'invalid_json');
    });
  }

  for (const body of ['[]', 'null', '"text"', '42', 'true']) {
    it(`400 body_not_object for ${body}`, () => {
      const error = errorOf('application/json', body);
      assert.equal(error.status, 400);
      assert.equal(error.code, 'body_not_object');
    });
  }
});

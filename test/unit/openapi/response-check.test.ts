// The response check the integration tests run on every answer of a service.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openApiDocument } from '../../../src/openapi/document.js';
import { OpenApiResponseChecker, type ObservedResponse } from '../../support/openapi-check.js';

const checker = new OpenApiResponseChecker(openApiDocument);
const JSON_TYPE = 'application/json';

function response(method: string, path: string, status: number, body?: unknown, contentType: string | null = body === undefined ? null : JSON_TYPE): ObservedResponse {
  return {
    method, path, status, contentType,
    contentLength: body === undefined ? '0' : '10',
    readJson: async () => body,
  };
}

const problemOf = async (r: ObservedResponse) => (await checker.check(r)).problem;

describe('OpenApiResponseChecker', () => {
  it('accepts documented answers and names the operation', async () => {
    const outcome = await checker.check(response('POST', '/edu-api/webhook', 200, { status: 'ok' }));
    assert.deepEqual(outcome, { operationId: 'postWebhookEvent', problem: undefined });
    assert.equal(await problemOf(response('POST', '/edu-api/webhook', 409, { status: 'error', error: 'duplicate_event', message: 'seen' })), undefined);
    assert.equal(await problemOf(response('GET', '/edu-api/users/anna%20m/events', 200, {
      username: 'anna m', events: [{ event_id: 'e1', client_id: 'c1', received_at: '2026-01-02T03:04:05.000Z', payload: { username: 'anna m' } }],
    })), undefined);
  });

  it('refuses an undocumented status, a body off the schema, and an undocumented media type', async () => {
    assert.match(await problemOf(response('POST', '/edu-api/webhook', 418, { status: 'error', error: 'teapot', message: '' })) ?? '',
      /status 418 is not documented for POST \/edu-api\/webhook/);
    assert.match(await problemOf(response('POST', '/edu-api/webhook', 200, { status: 'ok', extra: 1 })) ?? '',
      /does not match .*must NOT have additional properties/);
    assert.match(await problemOf(response('GET', '/edu-api/admin/webhook-clients', 200, { clients: [{ id: 'x', user_agent: 'a', api_key: 'secret', created_at: 'now' }] })) ?? '',
      /api_key must be equal to constant.*created_at must match format "date-time"/s);
    assert.match(await problemOf(response('GET', '/healthz', 200, 'ok', 'text/plain')) ?? '', /Content-Type text\/plain is not among the documented application\/json/);
    assert.match(await problemOf(response('GET', '/readyz', 200, undefined)) ?? '', /no Content-Type/);
  });

  it('accepts 405 and 503 in the error shape for methods a path does not have, and nothing else', async () => {
    const notAllowed = { status: 'error', error: 'method_not_allowed', message: 'GET is not allowed' };
    assert.equal(await problemOf(response('GET', '/edu-api/webhook', 405, notAllowed)), undefined);
    assert.match(await problemOf(response('GET', '/edu-api/webhook', 200, { status: 'ok' })) ?? '', /GET is not documented for \/edu-api\/webhook/);
    assert.match(await problemOf(response('GET', '/edu-api/webhook', 405, { nope: true })) ?? '', /does not match components\/schemas\/Error/);
  });

  it('matches WebDAV paths of any depth (and the share itself), WebDAV methods beyond OpenAPI\'s, and HEAD as GET', async () => {
    for (const path of ['/dav/schule', '/dav/schule/', '/dav/schule/a/b/c%20d.md']) {
      assert.equal((await checker.check(response('PROPFIND', path, 207, '<multistatus/>', 'application/xml; charset=utf-8'))).operationId, 'davPropfind', path);
    }
    assert.equal(await problemOf(response('PROPFIND', '/dav/schule/a', 207, '<x/>', 'application/xml; charset=utf-8')), undefined);
    assert.equal(await problemOf(response('MKCOL', '/dav/schule/new', 201)), undefined);
    assert.match(await problemOf(response('MKCOL', '/dav/schule/new', 207, '<x/>', 'application/xml')) ?? '', /status 207 is not documented for MKCOL/);
    assert.equal(await problemOf(response('GET', '/dav/schule/file.pdf', 200, 'bytes', 'application/pdf')), undefined);
    assert.equal(await problemOf(response('HEAD', '/admin/admin.js', 200, undefined, 'text/javascript; charset=utf-8')), undefined);
    assert.match(await problemOf(response('HEAD', '/admin/admin.js', 206)) ?? '', /status 206 is not documented/);
  });

  it('leaves paths the document does not describe alone', async () => {
    assert.deepEqual(await checker.check(response('GET', '/_cluster/health', 200, { status: 'green' })), { operationId: undefined, problem: undefined });
  });
});

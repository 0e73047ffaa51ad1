import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../src/http/http-error.js';
import { Router, type RouteMatch } from '../../../src/http/router.js';

function router(): Router {
  const r = new Router();
  const none = () => undefined;
  r.add('POST', '/edu-api/webhook', none, { bodyLimit: 10 });
  r.add('GET', '/edu-api/users/:username/events', none);
  r.add('GET', '/dav/*', none);
  r.add('PUT', '/dav/*', none, { streamBody: true });
  r.addHeaders('/dav/*', { 'x-scope': 'dav' });
  return r;
}

function matched(r: Router, method: string, path: string): RouteMatch {
  const { route } = r.resolve(method, path);
  assert.ok(!(route instanceof HttpError), `${method} ${path} matches`);
  return route;
}

describe('Router', () => {
  it('matches literal paths, :parameters and a trailing * (the rest of the path, also empty)', () => {
    const r = router();
    assert.deepEqual(matched(r, 'POST', '/edu-api/webhook').params, {});
    assert.equal(matched(r, 'POST', '/edu-api/webhook').bodyLimit, 10);
    assert.deepEqual(matched(r, 'GET', '/edu-api/users/anna/events').params, { username: 'anna' });
    assert.deepEqual(matched(r, 'GET', '/dav/schule/a/b.md').params, { '*': 'schule/a/b.md' });
    assert.deepEqual(matched(r, 'GET', '/dav').params, { '*': '' });
    assert.deepEqual(matched(r, 'HEAD', '/dav/x').params, { '*': 'x' });
    assert.equal(matched(r, 'PUT', '/dav/x').streamBody, true);
  });

  it('answers 404 for an empty parameter or a different length, 405 with Allow for another method', () => {
    const r = router();
    for (const path of ['/edu-api/users//events', '/edu-api/webhook/x', '/edu-api', '/elsewhere']) {
      const { route } = r.resolve('GET', path);
      assert.ok(route instanceof HttpError && route.status === 404, path);
    }
    const { route } = r.resolve('DELETE', '/dav/x');
    assert.ok(route instanceof HttpError);
    assert.equal(route.status, 405);
    assert.equal(route.headers['allow'], 'GET, PUT');
  });

  it('gives the headers of every scope the path is in, whether or not a route matches', () => {
    const r = router();
    assert.deepEqual(r.resolve('DELETE', '/dav/x').headers, { 'x-scope': 'dav' });
    assert.deepEqual(r.resolve('GET', '/dav/x').headers, { 'x-scope': 'dav' });
    assert.deepEqual(r.resolve('POST', '/edu-api/webhook').headers, {});
  });
});

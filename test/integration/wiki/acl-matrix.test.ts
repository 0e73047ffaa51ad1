// The permission filter end to end through the running service: 52 wiki pages written to the testbed DC with
// real NT ACLs (allow, deny, inherited, Everyone, Authenticated Users, Domain Users, a user, write-only,
// inherit-only, empty DACL), indexed by the service's own reconciler pass, then listed and searched by 12
// callers (accounts with different X-Service-Groups; deny entries apply to the account's whole token). Every answer is compared with the visible set worked out
// here from the ACLs: zero leaks, zero misses. Each caller is also served through a trusted service account
// (wiki.trusted_callers, X-Service-User naming the caller): its answers must equal the caller's own, page for page.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { startService, type RunningService } from '../../support/service.js';
import { runSambaClient, testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { removeTree } from '../smb/testbed.js';
import { ScratchAccounts, type ScratchAccount } from './scratch-accounts.js';
import {
  AUTHENTICATED_USERS,
  DOMAIN_USERS,
  EVERYONE,
  eventually,
  maySee,
  passAfter,
  principalsOf,
  testbedPageAcls,
  WikiClient,
  type Caller,
  type ReadAcl,
} from './wiki-service.js';

/** A folder whose pages allow `Lehrkräfte Mathe` and Schul-Admins and deny `Lehrer`. */
const DENIED_TO_LEHRER = 'Mathe ohne Lehrer';
const SHARE = 'schule';
const WELL_KNOWN: Record<string, string> = { [EVERYONE]: 'S-1-1-0', [AUTHENTICATED_USERS]: 'S-1-5-11' };
const MASK = { read: '0x1200a9', 'write-only': '0x116', full: '0x1f01ff' } as const;

/** One ACE as the test means it. */
interface Ace {
  principal: string;
  deny?: boolean;
  mask?: keyof typeof MASK;
  /** `ID`: marked inherited; `IO`: inherit-only (does not apply to the file itself). */
  flags?: 'ID' | 'IO';
}

interface MatrixPage {
  /** Share-relative path. */
  path: string;
  /** What the test expects the page's read ACL to be. */
  acl: ReadAcl;
  /** Own DACL in SDDL, set after the file is written; undefined = inherited from the folder. */
  sddl?: string;
}

/** Per-file ACLs: each kind appears on two pages. */
const FILE_ACLS: { name: string; aces: Ace[] | 'empty' }[] = [
  { name: 'lehrer', aces: [{ principal: 'Lehrer' }] },
  { name: 'mathe', aces: [{ principal: 'Lehrkräfte Mathe' }] },
  { name: 'schueler', aces: [{ principal: 'Schueler' }] },
  { name: 'verwaltung', aces: [{ principal: 'Verwaltung' }] },
  { name: 'nur-anna', aces: [{ principal: 'anna' }] },
  { name: 'nur-carla', aces: [{ principal: 'carla' }] },
  { name: 'jeder', aces: [{ principal: EVERYONE }] },
  { name: 'angemeldet', aces: [{ principal: AUTHENTICATED_USERS }] },
  { name: 'domain-users', aces: [{ principal: DOMAIN_USERS }] },
  { name: 'ohne-schueler', aces: [{ principal: 'Schueler', deny: true }, { principal: EVERYONE }] },
  { name: 'ohne-anna', aces: [{ principal: 'anna', deny: true }, { principal: 'Lehrer' }] },
  { name: 'mathe-ohne-lehrer', aces: [{ principal: 'Lehrer', deny: true }, { principal: 'Lehrkräfte Mathe' }] },
  { name: 'niemand', aces: 'empty' },
  { name: 'schreiben-ohne-lesen', aces: [{ principal: 'Lehrer', mask: 'write-only' }, { principal: 'Verwaltung' }] },
  { name: 'nur-vererbbar', aces: [{ principal: 'Lehrer', flags: 'IO' }, { principal: 'Schueler' }] },
  { name: 'geerbt', aces: [{ principal: 'Lehrer', flags: 'ID' }] },
  { name: 'alle-verweigert', aces: [{ principal: EVERYONE, deny: true }, { principal: 'Lehrer' }] },
  { name: 'admins', aces: [{ principal: 'Schul-Admins' }] },
];

/** Callers: 12 group sets, including forged, unknown, injected and missing groups. */
const CALLERS: Caller[] = [
  { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] },
  { user: 'anna', groups: ['Lehrer'] },
  { user: 'anna', groups: ['Lehrkräfte Mathe'] },
  { user: 'anna', groups: ['Lehrer', 'Verwaltung'] },
  { user: 'anna', groups: ['Domain Users'] },
  { user: 'ben', groups: ['Lehrer'] },
  { user: 'carla', groups: ['Schueler'] },
  { user: 'carla', groups: ['Schueler', 'Unbekannte Gruppe'] },
  { user: 'carla', groups: ['*)(cn=*'] },
  { user: 'dora', groups: ['Verwaltung'] },
  { user: 'dora', groups: undefined },
  { user: 'fpadmin', groups: ['Schul-Admins'] },
];

/** Words found on exactly one testbed page each (also under a stemming analyzer). */
const TESTBED_WORDS: Record<string, string> = {
  Pythagoras: 'schule:Fachschaften/Mathe/.wiki/formeln.md',
  Vertretungsplan: 'schule:Lehrerzimmer/.wiki/index.md',
  Zeugniskonferenz: 'verwaltung:.wiki/zeugnisse.md',
  Dürrenmatt: 'schule:Fachschaften/Deutsch/.wiki/lektüre.md',
  Pausenbrot: 'schule:Schülerzeitung/.wiki/index.md',
  Handys: 'schule:.wiki/regeln.md',
};

describe('wiki permission filter through the service (ACL matrix on the testbed DC)', () => {
  let env: TestbedEnv;
  let service: RunningService | undefined;
  let api: WikiClient;
  let smb: SmbClient;
  let admin: SmbShare;
  const scratch = `_wikitest-${randomBytes(4).toString('hex')}`;
  let accounts: ScratchAccounts | undefined;
  /** The portal's service account, trusted to name the user. */
  let portal: ScratchAccount;
  const pages: MatrixPage[] = [];
  const testbedAcls = testbedPageAcls();

  const sidOf = (principal: string): string => {
    const sid = env.groups[principal] ?? env.users[principal]?.sid ?? WELL_KNOWN[principal];
    assert.ok(sid, `no SID for ${principal}`);
    return sid;
  };
  /** A protected DACL: the given ACEs, plus full control for Administrators and read for the indexer account. */
  const sddlOf = (aces: Ace[], inherit = ''): string => {
    const entry = (type: string, flags: string, mask: string, sid: string) => `(${type};${flags};${mask};;;${sid})`;
    const own = aces.map((ace) => entry(ace.deny ? 'D' : 'A', inherit + (ace.flags ?? ''), MASK[ace.mask ?? 'read'], sidOf(ace.principal)));
    // Deny entries first, as Windows orders them.
    own.sort((a, b) => Number(b.startsWith('(D')) - Number(a.startsWith('(D')));
    return `D:P${own.join('')}${entry('A', inherit, MASK.full, 'BA')}${entry('A', inherit, MASK.read, env.users['svc-indexer']!.sid)}`;
  };
  const readAclOf = (aces: Ace[]): ReadAcl => ({
    allow: aces.filter((a) => !a.deny && a.mask !== 'write-only' && a.flags !== 'IO').map((a) => a.principal),
    deny: aces.filter((a) => a.deny).map((a) => a.principal),
  });
  const smbcacls = (path: string, sddl: string) =>
    runSambaClient('smbcacls', env, SHARE, env.dc_admin, [path, '-s', env.samba.conf, '--sddl', '--set', sddl]);
  const content = (path: string) => `# Seite ${path.split('/').pop()}\n\nmatrixwort und ${wordOf(path)}\n`;
  const wordOf = (path: string) => `einzelwort${pages.findIndex((p) => p.path === path)}`;

  async function writePages(folder: string, names: string[], acl: ReadAcl): Promise<void> {
    await admin.mkdir(`${folder}/.wiki`, { recursive: true });
    for (const name of names) {
      const page: MatrixPage = { path: `${folder}/.wiki/${name}.md`, acl };
      pages.push(page);
      await admin.writeFile(page.path, content(page.path));
    }
  }

  /** The caller's expected visible pages among the testbed's and this test's. */
  function expectedFor(caller: Caller): { testbed: string[]; matrix: string[] } {
    const principals = principalsOf(env, caller);
    return {
      testbed: [...testbedAcls].filter(([, acl]) => maySee(acl, principals)).map(([key]) => key).sort(),
      matrix: pages.filter((p) => maySee(p.acl, principals)).map((p) => `${SHARE}:${p.path}`).sort(),
    };
  }
  /** Only pages this test knows: the testbed's and its own (other content on the DC is not judged here). */
  const known = (keys: string[]) => keys.filter((key) => testbedAcls.has(key) || key.startsWith(`${SHARE}:${scratch}/`));

  before(async () => {
    env = await readTestbedEnv();
    smb = new SmbClient();
    admin = testbedShare(smb, env, env.dc_admin, SHARE);
    // Inherits the share root's ACL (Domain Users read, Lehrer change).
    await writePages(scratch, ['index', 'geerbt-a', 'geerbt-b', 'geerbt-c'], testbedAcls.get(`${SHARE}:.wiki/index.md`)!);
    // Folders with their own inheritable ACL; pages get it as inherited entries.
    const folderAcls: [string, Ace[]][] = [
      ['Kollegium', [{ principal: 'Lehrer' }, { principal: 'Schueler', deny: true }]],
      ['Offen für alle', [{ principal: EVERYONE }]],
      // anna is in both groups: a header naming only `Lehrkräfte Mathe` must not lift the `Lehrer` deny.
      [DENIED_TO_LEHRER, [{ principal: 'Lehrkräfte Mathe' }, { principal: 'Lehrer', deny: true }, { principal: 'Schul-Admins' }]],
    ];
    for (const [folder, aces] of folderAcls) {
      await admin.mkdir(`${scratch}/${folder}`);
      await smbcacls(`${scratch}/${folder}`, sddlOf(aces, 'OICI'));
      await writePages(`${scratch}/${folder}`, ['index', 'protokoll', 'plan', 'liste'], readAclOf(aces));
    }
    // Pages with their own protected ACL.
    await admin.mkdir(`${scratch}/Einzeln/.wiki`, { recursive: true });
    for (const [i, kind] of FILE_ACLS.entries()) {
      for (const n of [1, 2]) {
        const page: MatrixPage = {
          path: `${scratch}/Einzeln/.wiki/${kind.name}-${n}.md`,
          acl: kind.aces === 'empty' ? { allow: [], deny: [] } : readAclOf(kind.aces),
          sddl: kind.aces === 'empty' ? 'D:P' : sddlOf(kind.aces),
        };
        if (i === 0 && n === 1) page.path = `${scratch}/Einzeln/.wiki/index.md`;
        pages.push(page);
        await admin.writeFile(page.path, content(page.path));
        await smbcacls(page.path, page.sddl!);
      }
    }
    assert.ok(pages.length >= 40, `${pages.length} pages`);

    accounts = new ScratchAccounts(env);
    portal = await accounts.createUser(`sso${randomBytes(3).toString('hex')}-portal`);
    const started = Date.now();
    // The matrix compares every caller, the global admin (fpadmin) included, with its own login and through the portal:
    // naming an admin in X-Service-User is off by default (403 service_user_admin), so it is allowed here.
    service = await startService({ reconciler: { interval: '2s' }, wiki: { trusted_callers: [portal.name], trusted_callers_may_name_admins: true } });
    api = new WikiClient(service.url, env);
    const pass = await passAfter(service, started);
    assert.deepEqual(pass.errors, []);
    // Everything but the empty-DACL pages (unreadable for the indexer too) reaches the index.
    const admins: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
    await eventually(async () => assert.deepEqual(known(await api.listedPages(admins, { scratch })), [...expectedFor(admins).testbed, ...expectedFor(admins).matrix].sort()));
  });

  after(async () => {
    try {
      if (admin) await removeTree(admin, scratch);
      if (service) {
        // The next pass deletes the documents of the removed pages.
        const removed = Date.now();
        await passAfter(service, removed);
        await eventually(async () => {
          const left = await api.searchedPages({ user: 'fpadmin', groups: ['Schul-Admins'] }, { q: 'matrixwort' });
          assert.deepEqual(left, [], 'removed pages leave the index at the next pass');
        });
      }
    } finally {
      await service?.stop();
      await smb?.close();
      await accounts?.removeAll();
    }
  });

  /** Everything the caller is shown: list views, the matrix search and each testbed word's search. */
  async function shownTo(caller: Caller): Promise<Record<string, string[]>> {
    const shown: Record<string, string[]> = { 'list views': known(await api.listedPages(caller, { scratch })), matrixwort: await api.searchedPages(caller, { q: 'matrixwort' }) };
    for (const word of Object.keys(TESTBED_WORDS)) shown[word] = await api.searchedPages(caller, { q: word });
    return shown;
  }

  for (const caller of CALLERS) {
    it(`${caller.user} with groups ${JSON.stringify(caller.groups ?? null)}: lists and finds exactly what the ACLs grant, also through a trusted caller`, async () => {
      const expected = expectedFor(caller);
      const own = await shownTo(caller);
      assert.deepEqual(own['list views'], [...expected.testbed, ...expected.matrix].sort(), 'list views');
      assert.deepEqual(own['matrixwort'], expected.matrix, 'search over the matrix pages');
      for (const [word, page] of Object.entries(TESTBED_WORDS)) {
        assert.deepEqual(own[word], expected.testbed.includes(page) ? [page] : [], `searching ${word}`);
      }
      assert.deepEqual(await shownTo({ ...caller, via: portal }), own, 'the trusted caller naming the user is shown what the user\'s own login is');
    });
  }

  it('hides a page denied to one of the caller\'s groups even when the header names only an allowed one', async () => {
    const folder = `${scratch}/${DENIED_TO_LEHRER}`;
    const inFolder = (keys: string[]) => keys.filter((key) => key.startsWith(`${SHARE}:${folder}/`));
    const rootsOf = async (caller: Caller) =>
      (await api.roots(caller)).roots.filter((r) => r.share === SHARE && r.folder === folder).map((r) => r.pages);
    const admins: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
    assert.deepEqual(await rootsOf(admins), [4], 'the pages are indexed and visible to an allowed group');
    for (const groups of [['Lehrkräfte Mathe'], ['Lehrkräfte Mathe', 'Lehrer']]) {
      const anna: Caller = { user: 'anna', groups };
      assert.deepEqual(inFolder(await api.searchedPages(anna, { q: 'matrixwort' })), [], `search, header ${groups}`);
      assert.deepEqual((await api.pages(anna, SHARE, folder)).pages, [], `/wiki/pages, header ${groups}`);
      assert.deepEqual(await rootsOf(anna), [], `/wiki/roots, header ${groups}`);
    }
  });

  it('finds a single page by its own word, and scopes search to a share and folder', async () => {
    const anna: Caller = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };
    const visible = expectedFor(anna).matrix;
    for (const page of pages.filter((_, i) => i % 7 === 0)) {
      const hits = await api.searchedPages(anna, { q: wordOf(page.path) });
      assert.deepEqual(hits, visible.includes(`${SHARE}:${page.path}`) ? [`${SHARE}:${page.path}`] : [], page.path);
    }
    const kollegium = await api.searchedPages(anna, { q: 'matrixwort', share: SHARE, folder: `${scratch}/Kollegium` });
    assert.deepEqual(kollegium, visible.filter((key) => key.startsWith(`${SHARE}:${scratch}/Kollegium/`)));
    assert.equal(kollegium.length, 4);
    assert.deepEqual(await api.searchedPages(anna, { q: 'matrixwort', share: 'verwaltung' }), []);
  });
});

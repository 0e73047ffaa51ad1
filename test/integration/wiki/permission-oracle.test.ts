// The permission oracle: the file server is the authority. A seeded fixture on the testbed DC (30 users, 15
// groups with nested membership, 200 pages under ACLs of every kind, see oracle/fixture.ts) is indexed by the
// service; then for every (user, page, X-Service-Groups subset) the service's answers (search, /wiki/suggest,
// /wiki/pages, /wiki/roots, WebDAV GET with the user's own login and, by constrained delegation, for the trusted caller
// naming the user) are compared with the file server's own verdict: an SMB open for reading as that user.
// The verdicts themselves are checked first: they must spread over users and pages within bounds a degenerate run
// (all from one account, all granted, all refused) breaks (oracle/spread.ts), and Samba's smbclient must agree with
// the project's SMB client on a seeded sample of them (oracle/second-opinion.ts).
//   leaks:  the service shows or serves a page the file server refuses that user, under any header — must be 0;
//   misses: with the user's full group list, the file server grants and the service hides — allowed only for the
//           documented reasons of oracle/verdicts.ts (an allow entry the server reaches before a matching deny).
// Every (user, header) case runs in both modes of the wiki endpoints: the user's own login, and a trusted service
// account (wiki.trusted_callers) naming the user in X-Service-User; the two views must not differ in any page.
// Then writers edit pages through WebDAV (the page's ACL must survive the save, the matrix is checked again) and
// readers who may not write try LOCK, PROPPATCH, PUT, DELETE and MOVE (each must be refused). After the edits every
// check of the first matrix holds again.
// The seed is printed; ORACLE_SEED=<n> repeats a run.
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import PQueue from 'p-queue';
import { SmbClient, SmbError, type SmbShare } from '../../../src/smb/index.js';
import type { SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import { AUTHENTICATED_USERS_SID, deriveAcl, EVERYONE_SID } from '../../../src/wiki/acl.js';
import { domainUsersSid } from '../../../src/viewer/principal.js';
import { serviceIndex, startService, type RunningService } from '../../support/service.js';
import { ownLogonAuth, testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, kerberosConfig } from '../../testbed/kerberos.js';
import { seededRandom } from '../search/seeded-random.js';
import { createDirectory, type OracleDirectory, type OracleUser } from './oracle/directory.js';
import { buildFixture, suggestionHeading, type OracleFixture, type OraclePage } from './oracle/fixture.js';
import { drawSample, smbclientGrants } from './oracle/second-opinion.js';
import { assertSpread, describeSpread, verdictSpread, type VerdictSpread } from './oracle/spread.js';
import { grantsNoChange, missReason, orderedGrant, Right } from './oracle/verdicts.js';
import { ScratchAccounts, type ScratchAccount } from './scratch-accounts.js';
import { eventually, passAfter, WikiClient, type Caller } from './wiki-service.js';
import { testSearchClient } from '../../support/es-indices.js';

const SHARE = 'schule';
const SEED = process.env['ORACLE_SEED'] === undefined ? randomInt(2 ** 31) : Number(process.env['ORACLE_SEED']);
const CONCURRENCY = 8;
/** The smbclient sample: this many pairs the project's client grants, and as many it refuses. */
const SAMPLE_PER_SIDE = 30;
/** SE_DACL_PROTECTED: the DACL does not inherit from the parent. */
const DACL_PROTECTED = 0x1000;

/** One (user, header subset) as the browser-facing API would call. */
interface HeaderCase {
  user: OracleUser;
  /** `full`: every group of the user (nested included); `direct`, `none`, `mixed` (own and foreign), `foreign`. */
  name: string;
  groups: string[] | undefined;
}

interface Finding {
  user: string;
  header: string;
  page: string;
  via: string;
  reason?: string;
}

interface MatrixResult {
  size: number;
  leaks: Finding[];
  misses: Finding[];
  /** Search, suggestions, page lists and roots that disagree with one another for one caller. */
  inconsistencies: string[];
  /** (user, header) cases where the trusted caller naming the user is shown other pages than the user's own login. */
  modeDifferences: string[];
  /** The file server's verdicts: user → readable pages. */
  granted: Map<string, Set<string>>;
  spread: VerdictSpread;
  /** (user, page) pairs of the smbclient sample where smbclient and the project's client disagree. */
  disagreements: string[];
}

const basic = (user: { name: string; password: string }) => `Basic ${Buffer.from(`${user.name}:${user.password}`).toString('base64')}`;

describe(`permission oracle (ORACLE_SEED=${SEED})`, () => {
  const next = seededRandom(SEED);
  const prefix = `orc${randomBytes(2).toString('hex')}`;
  let env: TestbedEnv;
  let smb: SmbClient;
  let admin: SmbShare;
  let es: Client;
  let directory: OracleDirectory | undefined;
  let accounts: ScratchAccounts | undefined;
  /** The portal's service account, trusted to name the user (the second mode of every case). */
  let portal: ScratchAccount;
  let fixture: OracleFixture;
  let service: RunningService | undefined;
  /** Holds the delegation account's keytab. */
  let keytabDir: string | undefined;
  let api: WikiClient;
  let cases: HeaderCase[];
  const security = new Map<string, SecurityDescriptor>();
  let baseline: MatrixResult;
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const all = <T, R>(items: readonly T[], job: (item: T) => Promise<R>): Promise<R[]> => Promise.all(items.map((item) => queue.add(() => job(item)) as Promise<R>));
  const davUrl = (page: string) => `${service!.url}/dav/${SHARE}/${page.split('/').map(encodeURIComponent).join('/')}`;
  const wikiDirOf = (page: OraclePage) => `${page.folder}/.wiki`;

  /** The file server's verdict: can `user` open the page for reading? */
  async function serverGrants(user: OracleUser, page: OraclePage): Promise<boolean> {
    const share = testbedShare(smb, env, { user: user.name, password: user.password }, SHARE);
    try {
      await share.readFile(page.path, { length: 1 });
      return true;
    } catch (error) {
      if (error instanceof SmbError && error.code === 'ACCESS_DENIED') return false;
      throw error;
    }
  }

  /** The fixture's pages in the index, whoever may see them (asked of Elasticsearch directly). */
  async function indexedPages(): Promise<Set<string>> {
    const response = await es.search<{ share: string; path: string }>({
      index: serviceIndex,
      size: 1000,
      _source: ['share', 'path'],
      query: { bool: { filter: [{ term: { share: SHARE } }, { match: { body: fixture.word } }] } },
    });
    return new Set(response.hits.hits.map((hit) => hit._source!.path).filter((p) => p.startsWith(`${fixture.root}/`)));
  }

  function headerCases(users: OracleUser[], groupNames: string[]): HeaderCase[] {
    return users.flatMap((user) => {
      const own = user.groups;
      const foreign = groupNames.filter((g) => !own.includes(g));
      const someOwn = own.filter(() => next() < 0.5);
      const list: HeaderCase[] = [
        { user, name: 'full', groups: own },
        { user, name: 'none', groups: undefined },
        { user, name: 'mixed', groups: [...(someOwn.length > 0 ? someOwn : own.slice(0, 1)), ...foreign.filter(() => next() < 0.15)] },
        { user, name: 'foreign', groups: foreign.filter(() => next() < 0.25) },
      ];
      if (user.direct.length !== own.length) list.push({ user, name: 'direct', groups: user.direct });
      return list;
    });
  }

  /** What the service shows one caller among the fixture's pages: to the user's own login, or through `via`. */
  async function serviceView(hc: HeaderCase, via?: ScratchAccount) {
    const caller: Caller = { user: hc.user.name, groups: hc.groups, ...(via ? { via } : {}) };
    const searched = new Set<string>();
    for (let from = 0; ; from += 100) {
      const result = await api.search(caller, { q: fixture.word, share: SHARE, folder: fixture.root, size: 100, from });
      assert.equal(result.degraded, undefined, 'search is not degraded');
      result.hits.forEach((hit) => searched.add(hit.path));
      if (from + 100 >= result.total) break;
    }
    const listed = new Map<string, string[]>();
    const suggested = new Set<string>();
    for (const folder of fixture.folders) {
      listed.set(folder.path, (await api.pages(caller, SHARE, folder.path)).pages.map((p) => p.path));
      const { suggestions, degraded } = await api.suggest(caller, { q: suggestionHeading(fixture.word, folder.path), share: SHARE, size: '20' });
      assert.equal(degraded, undefined, 'suggest is not degraded');
      suggestions.forEach((suggestion) => suggested.add(suggestion.path));
    }
    const roots = new Map(
      (await api.roots(caller)).roots.filter((r) => r.share === SHARE && r.folder.startsWith(`${fixture.root}/`)).map((r) => [r.folder, r.pages]),
    );
    return { searched, suggested, listed, roots };
  }

  /**
   * (case, page) pairs where only the user's whole token keeps the page hidden: the header's groups match an allow
   * entry and no deny entry, yet a group the header leaves out is denied. Shows that the matrix can catch a deny
   * matched with the header's groups alone.
   */
  function denyOutsideHeader(): number {
    const groupSid = new Map(directory!.groups.map((g) => [g.name, g.sid]));
    let count = 0;
    for (const hc of cases) {
      const counted = (hc.groups ?? []).filter((g) => hc.user.groups.includes(g)).map((g) => groupSid.get(g)!);
      if (counted.length === 0) continue;
      const allowSet = new Set([hc.user.sid, ...counted, domainUsersSid(hc.user.sid)!, EVERYONE_SID, AUTHENTICATED_USERS_SID]);
      for (const page of fixture.pages) {
        const acl = deriveAcl(security.get(page.path)!);
        if (acl.allow.some((sid) => allowSet.has(sid)) && !acl.deny.some((sid) => allowSet.has(sid)) && acl.deny.some((sid) => hc.user.token.has(sid))) count++;
      }
    }
    return count;
  }

  async function runMatrix(label: string): Promise<MatrixResult> {
    const started = Date.now();
    const { users } = directory!;
    const pairs = users.flatMap((user) => fixture.pages.map((page) => ({ user, page })));
    const granted = new Map<string, Set<string>>(users.map((u) => [u.name, new Set<string>()]));
    await all(pairs, async ({ user, page }) => {
      if (await serverGrants(user, page)) granted.get(user.name)!.add(page.path);
    });
    const spread = verdictSpread(granted, fixture.pages.map((p) => p.path));
    const sample = drawSample(users, fixture.pages, granted, next, SAMPLE_PER_SIDE);
    const disagreements: string[] = [];
    await all(sample, async ({ user, page, granted: ours }) => {
      const theirs = await smbclientGrants(SHARE, user, page.path);
      if (theirs !== ours) disagreements.push(`${user.name} ${page.path}: smbclient ${theirs ? 'reads' : 'is refused'}, the project's client ${ours ? 'reads' : 'is refused'}`);
    });
    const indexed = await indexedPages();
    const leaks: Finding[] = [];
    const misses: Finding[] = [];
    const inconsistencies: string[] = [];
    const modeDifferences: string[] = [];
    const comparable = (view: Awaited<ReturnType<typeof serviceView>>) =>
      JSON.stringify([[...view.searched].sort(), [...view.suggested].sort(), [...view.listed].sort(), [...view.roots].sort()]);
    await all(cases, async (hc) => {
      const mayRead = granted.get(hc.user.name)!;
      const own = await serviceView(hc);
      const { searched, suggested, listed, roots } = own;
      const header = hc.name;
      if (comparable(await serviceView(hc, portal)) !== comparable(own)) modeDifferences.push(`${hc.user.name}/${header}`);
      const finding = (page: string, via: string, reason?: string): Finding => ({ user: hc.user.name, header, page, via, ...(reason ? { reason } : {}) });
      const listedAll = new Set([...listed.values()].flat());
      for (const page of searched) if (!mayRead.has(page)) leaks.push(finding(page, 'search'));
      for (const page of suggested) if (!mayRead.has(page)) leaks.push(finding(page, '/wiki/suggest'));
      for (const page of listedAll) if (!mayRead.has(page)) leaks.push(finding(page, '/wiki/pages'));
      for (const [folder, count] of roots) {
        const readable = fixture.pages.filter((p) => p.folder === folder && mayRead.has(p.path) && indexed.has(p.path)).length;
        if (count > readable) leaks.push(finding(folder, `/wiki/roots (${count} pages, ${readable} readable)`));
        if (count !== listed.get(folder)?.length) inconsistencies.push(`${hc.user.name}/${header}: roots says ${count} in ${folder}, pages lists ${listed.get(folder)?.length}`);
      }
      if ([...searched].sort().join() !== [...listedAll].sort().join()) inconsistencies.push(`${hc.user.name}/${header}: search and page lists differ`);
      if ([...searched].sort().join() !== [...suggested].sort().join()) inconsistencies.push(`${hc.user.name}/${header}: search and suggestions differ`);
      if (hc.name !== 'full') return;
      for (const page of fixture.pages) {
        if (!mayRead.has(page.path) || searched.has(page.path)) continue;
        const reason = indexed.has(page.path) ? missReason(security.get(page.path)!, hc.user.token) : 'not-indexed';
        misses.push(finding(page.path, 'search', reason ?? undefined));
      }
    });
    // WebDAV GET: the header plays no part, the service opens the file as the user: with the user's own login, and
    // for the portal naming the user in X-Service-User, reached by constrained delegation (issue 29, flow 3).
    const getModes = [
      ['WebDAV GET', (user: OracleUser) => ({ authorization: basic(user) })],
      ['WebDAV GET by delegation', (user: OracleUser) => ({ authorization: basic(portal), 'x-service-user': user.name })],
    ] as const;
    const getTimes: string[] = [];
    for (const [via, headers] of getModes) {
      const getsStarted = Date.now();
      await all(pairs, async ({ user, page }) => {
        const mayRead = granted.get(user.name)!.has(page.path);
        const res = await fetch(davUrl(page.path), { headers: headers(user) });
        await res.arrayBuffer();
        const served = res.status === 200;
        if (served && !mayRead) leaks.push({ user: user.name, header: '-', page: page.path, via });
        if (!served && mayRead) misses.push({ user: user.name, header: '-', page: page.path, via: `${via} ${res.status}` });
      });
      getTimes.push(`${via} ${((Date.now() - getsStarted) / 1000).toFixed(1)} s`);
    }
    const size = cases.length * fixture.pages.length + getModes.length * users.length * fixture.pages.length;
    const reasons = new Map<string, number>();
    for (const miss of misses) reasons.set(miss.reason ?? 'UNDOCUMENTED', (reasons.get(miss.reason ?? 'UNDOCUMENTED') ?? 0) + 1);
    const readable = [...granted.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `permission oracle ${label} (ORACLE_SEED=${SEED}): ${users.length} users, ${directory!.groups.length} groups, ${fixture.pages.length} pages, ` +
        `${cases.length} (user, header) cases; matrix ${size} (user, page, header|GET) checks; file server grants ${readable} of ` +
        `${users.length * fixture.pages.length} (user, page); indexed ${indexed.size}; leaks ${leaks.length}; misses ${misses.length} ` +
        `${JSON.stringify(Object.fromEntries(reasons))}; inconsistencies ${inconsistencies.length}; ` +
        `trusted caller vs own login: ${modeDifferences.length} of ${cases.length} cases differ; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    console.log(`permission oracle ${label}: ${pairs.length} (user, page) pairs each by ${getTimes.join(', ')}`);
    for (const miss of misses) console.log(`  miss ${miss.reason ?? 'UNDOCUMENTED'}: ${miss.user} ${miss.page} (${miss.via})`);
    for (const leak of leaks) console.log(`  LEAK: ${leak.user} [${leak.header}] ${leak.page} via ${leak.via}`);
    console.log(`permission oracle ${label}: verdicts ${describeSpread(spread, users.length)}`);
    const sampledGrants = sample.filter((v) => v.granted).length;
    console.log(
      `permission oracle ${label}: smbclient sample of ${sample.length} (user, page) (${sampledGrants} granted, ${sample.length - sampledGrants} refused ` +
        `by the project's client): ${disagreements.length} disagree`,
    );
    for (const line of disagreements) console.log(`  smbclient disagrees: ${line}`);
    return { size, leaks, misses, inconsistencies, modeDifferences, granted, spread, disagreements };
  }

  /** What every run of the matrix must show, before the edits and after: first that its verdicts can be trusted. */
  function assertMatrix(result: MatrixResult, when: string): void {
    assert.ok(result.size >= 30 * 200 * 3, `matrix size ${result.size} ${when}`);
    assertSpread(result.spread, when);
    assert.deepEqual(result.disagreements, [], `smbclient agrees with the project's client ${when}`);
    assert.deepEqual(result.leaks, [], `leaks ${when}`);
    assert.deepEqual(result.misses.filter((m) => m.reason === undefined || m.reason === 'not-indexed'), [], `misses without a documented reason ${when}`);
    assert.deepEqual(result.inconsistencies, [], `search, suggestions, page lists and roots agree ${when}`);
    assert.deepEqual(result.modeDifferences, [], `a trusted caller naming the user is shown what the user's own login is ${when}`);
  }

  /** The pages' and their `.wiki/` folders' security descriptors, as the DC administrator reads them. */
  async function readSecurity(): Promise<void> {
    const paths = [...new Set(fixture.pages.flatMap((page) => [page.path, wikiDirOf(page)]))];
    await all(paths, async (p) => security.set(p, await admin.getSecurity(p)));
  }

  before(async () => {
    env = await readTestbedEnv();
    smb = new SmbClient();
    admin = testbedShare(smb, env, env.dc_admin, SHARE);
    es = testSearchClient(env.es.url);
    const built = Date.now();
    directory = await createDirectory(env, prefix, next, 30, 15);
    fixture = await buildFixture({
      env,
      admin,
      share: SHARE,
      root: `_${prefix}-oracle`,
      word: `orakel${prefix}`,
      directory,
      indexerSid: env.users[env.indexer.user]!.sid,
      next,
    });
    await readSecurity();
    cases = headerCases(directory.users, directory.groups.map((g) => g.name));
    const testbedUsers = Object.fromEntries(directory.users.map((u) => [u.name, { password: u.password, groups: u.groups, sid: u.sid }]));
    accounts = new ScratchAccounts(env);
    portal = await accounts.createUser(`${prefix}-portal`);
    const started = Date.now();
    console.log(`permission oracle: fixture built in ${((started - built) / 1000).toFixed(1)} s`);
    // The users' own logons stay as the testbed's mode makes them (ownLogonAuth); the portal's WebDAV requests reach SMB by delegation.
    await ensureDelegationAccounts();
    keytabDir = await mkdtemp(path.join(tmpdir(), 'permission-oracle-'));
    await exportKeytab(delegationAccount.user, path.join(keytabDir, 'proxy.keytab'));
    service = await startService({
      reconciler: { interval: '2s' },
      wiki: { trusted_callers: [portal.name] },
      smb: { auth: ownLogonAuth(env) },
      kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: path.join(keytabDir, 'proxy.keytab') } },
    });
    api = new WikiClient(service.url, { ...env, users: { ...env.users, ...testbedUsers } });
    await passAfter(service, started, 120_000);
    // Every page the indexer account may read reaches the index (empty DACLs keep it out too).
    const readableByIndexer = fixture.pages.filter((p) => p.kind !== 'empty-dacl').length;
    await eventually(async () => assert.equal((await indexedPages()).size, readableByIndexer), 30_000);
    console.log(`permission oracle: indexed ${readableByIndexer} pages after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  after(async () => {
    try {
      if (fixture) await rm(path.join(env.smb.shares.find((s) => s.name === SHARE)!.path, fixture.root), { recursive: true, force: true });
      if (service && fixture) {
        const removed = Date.now();
        await passAfter(service, removed, 120_000);
        await eventually(async () => assert.equal((await indexedPages()).size, 0, 'removed pages leave the index'));
      }
    } finally {
      await service?.stop();
      await directory?.remove();
      await accounts?.removeAll();
      await smb?.close();
      await es?.close();
      if (keytabDir) await rm(keytabDir, { recursive: true, force: true });
    }
  });

  it('the service shows no page the file server refuses, and hides only for documented reasons', async () => {
    baseline = await runMatrix('before edits');
    assertMatrix(baseline, 'before edits');
    const guarded = denyOutsideHeader();
    console.log(`permission oracle: ${guarded} (user, header, page) cases are hidden only by a deny of a group the header leaves out`);
    assert.ok(guarded > 0, 'the fixture denies pages to groups that narrowed headers leave out');
  });

  it('readers who may not write are refused LOCK, PROPPATCH, PUT, DELETE and MOVE', async () => {
    assert.ok(baseline, 'the read matrix ran');
    const pairs: { user: OracleUser; page: OraclePage }[] = [];
    for (const page of fixture.pages.filter((_, i) => i % 7 === 3)) {
      const user = directory!.users.find(
        (u) =>
          baseline.granted.get(u.name)!.has(page.path) &&
          grantsNoChange(security.get(page.path)!, u.token) &&
          grantsNoChange(security.get(wikiDirOf(page))!, u.token),
      );
      if (user && pairs.length < 6) pairs.push({ user, page });
    }
    assert.ok(pairs.length >= 3, `${pairs.length} readers who may not write`);
    const accepted: string[] = [];
    for (const { user, page } of pairs) {
      const auth = { authorization: basic(user) };
      const attempts: [string, RequestInit][] = [
        ['LOCK', { headers: { ...auth, depth: '0', timeout: 'Second-60', 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>oracle</D:owner></D:lockinfo>' }],
        ['PROPPATCH', { headers: { ...auth, 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><o:note xmlns:o="urn:oracle">x</o:note></D:prop></D:set></D:propertyupdate>' }],
        ['PUT', { headers: auth, body: `${fixture.word} overwritten by a reader\n` }],
        ['DELETE', { headers: auth }],
        ['MOVE', { headers: { ...auth, destination: davUrl(page.path.replace(/\.md$/, '-moved.md')), overwrite: 'F' } }],
      ];
      for (const [method, init] of attempts) {
        const res = await fetch(davUrl(page.path), { method, ...init });
        await res.arrayBuffer();
        if (res.status !== 403) accepted.push(`${method} ${page.path} as ${user.name}: ${res.status}`);
        const token = res.headers.get('lock-token');
        if (method === 'LOCK' && token) await fetch(davUrl(page.path), { method: 'UNLOCK', headers: { ...auth, 'lock-token': token } });
      }
    }
    console.log(`permission oracle: ${pairs.length} readers x 5 methods; not refused with 403: ${accepted.length}`);
    for (const line of accepted) console.log(`  not refused: ${line}`);
    assert.deepEqual(accepted, [], 'every change by a reader who may not write is refused with 403');
  });

  it('writers edit pages through WebDAV: the pages keep their ACLs and the matrix still holds', async () => {
    assert.ok(baseline, 'the read matrix ran');
    const edits: { user: OracleUser; page: OraclePage }[] = [];
    for (const kind of ['inherited', 'protected', 'merged', 'allow-before-deny', 'everyone', 'authenticated', 'not-for-reading', 'null-dacl']) {
      for (const page of fixture.pages.filter((p) => p.kind === kind)) {
        const user = directory!.users.find(
          (u) =>
            baseline.granted.get(u.name)!.has(page.path) &&
            orderedGrant(security.get(page.path)!, u.token, Right.readData | Right.writeData | Right.delete) &&
            orderedGrant(security.get(wikiDirOf(page))!, u.token, Right.writeData),
        );
        if (user) {
          edits.push({ user, page });
          break;
        }
      }
    }
    console.log(`permission oracle: kinds with a writer: ${edits.map(({ page }) => page.kind).join(', ')}`);
    assert.ok(edits.length >= 4, `${edits.length} pages with a writer`);
    const edited = Date.now();
    const refused: string[] = [];
    for (const { user, page } of edits) {
      const res = await fetch(davUrl(page.path), { method: 'PUT', headers: { authorization: basic(user) }, body: `# Bearbeitet\n\n## ${suggestionHeading(fixture.word, page.folder)}\n\n${fixture.word} von ${user.name}\n` });
      const answer = await res.text();
      if (res.status !== 201 && res.status !== 204) refused.push(`${page.path} (${page.kind}) as ${user.name}: ${res.status} ${answer}`);
    }
    assert.deepEqual(refused, [], 'writers may save');
    const changed: string[] = [];
    for (const { page } of edits) {
      const before = security.get(page.path)!;
      const now = await admin.getSecurity(page.path);
      const same =
        (before.control & DACL_PROTECTED) === (now.control & DACL_PROTECTED) &&
        JSON.stringify(before.dacl?.aces ?? null) === JSON.stringify(now.dacl?.aces ?? null);
      if (!same) changed.push(`${page.path} (${page.kind}): ${JSON.stringify(before.dacl?.aces ?? null)} -> ${JSON.stringify(now.dacl?.aces ?? null)}`);
    }
    console.log(`permission oracle: ${edits.length} pages saved by writers; DACL changed by the save: ${changed.length}`);
    for (const line of changed) console.log(`  ACL changed: ${line}`);
    await readSecurity();
    await passAfter(service!, edited, 120_000);
    const again = await runMatrix('after edits');
    assertMatrix(again, 'after edits');
    assert.deepEqual(changed, [], 'a save keeps the page\'s DACL');
    const verdictChanges = directory!.users.flatMap((u) =>
      edits.filter(({ page }) => baseline.granted.get(u.name)!.has(page.path) !== again.granted.get(u.name)!.has(page.path)).map(({ page }) => `${u.name} ${page.path}`),
    );
    assert.deepEqual(verdictChanges, [], 'who may read an edited page is what it was before the save');
  });
});

// The write oracle: an operation through the service is allowed exactly when the same user, doing the equivalent
// operation directly over SMB, is allowed, and it leaves the file's owner and DACL as that direct operation does.
// The fixture (write-oracle/fixture.ts) holds a school's setups: a hand-in folder with a teacher's worksheet, an
// append-only log, write without delete, FILE_DELETE_CHILD, deny entries for a user and a group, inherited,
// explicit and protected ACLs, a read-only file. For every (user, target, operation) the service acts on one
// tree and the project's SMB client, as the user, on an identical second tree (write-oracle/operations.ts; PUT
// with a page and with a body larger than one block, which the service stages next to the target):
//   escalations: the service did what the file server refused — must be 0;
//   misses:      the file server allowed, the service refused — only the kinds of DOCUMENTED_MISSES;
//   effects:     both allowed, but owner, DACL, control bits or content differ — must be 0; and the user's
//                rights on the file the service left may be no wider than before or than the direct result.
// A sample of the direct verdicts is repeated with Samba's smbclient on a third tree.
// The whole matrix runs in two modes of the service's side: the user's own Basic login, and a trusted caller
// (wiki.trusted_callers) naming the user in X-Service-User, which the service serves by constrained delegation
// (kerberos.delegation; issue 29, flow 3). The direct side is the user's own SMB session in both.
// ORACLE_SEED=<n> repeats a run's order of cells and its smbclient sample.
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import PQueue from 'p-queue';
import { SmbClient, TEMP_NAME, type SmbShare } from '../../../src/smb/index.js';
import { startService, type RunningService } from '../../support/service.js';
import { ownLogonAuth, testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, kerberosConfig } from '../../testbed/kerberos.js';
import { ScratchAccounts } from '../wiki/scratch-accounts.js';
import { smbclientStatus } from '../smb/testbed.js';
import { seededRandom } from '../search/seeded-random.js';
import { DavClient, account, type Account } from './dav-client.js';
import { rightNames, rightsOf, stateOf, type PathState } from './write-oracle/effects.js';
import { buildTree, removeOnDisk, scenario, sidNamer, type Scenario } from './write-oracle/fixture.js';
import { OPERATIONS, type Operation, type Verdict } from './write-oracle/operations.js';
import { DOCUMENTED_MISSES, findingOf, isDocumented, type Finding } from './write-oracle/verdicts.js';

const SHARE = 'schule';
const SEED = process.env['ORACLE_SEED'] === undefined ? randomInt(2 ** 31) : Number(process.env['ORACLE_SEED']);
const USERS = ['anna', 'ben', 'carla', 'dora'] as const;
type User = (typeof USERS)[number];
/** How the service's side is called: as the user (Basic), or by a trusted caller naming the user (delegation). */
const MODES = ['own', 'delegated'] as const;
type Mode = (typeof MODES)[number];
const CONCURRENCY = 8;
/** 4 users x (16 files x 8 operations + 9 folders x 3) = 620 per mode: a smaller matrix means the fixture lost something. */
const MIN_MATRIX = 600;
/** The share of cells of each operation the file server allows (this fixture: 0.3 to 0.5). */
const ALLOWED_BAND = [0.1, 0.9] as const;

interface Cell {
  mode: Mode;
  user: User;
  op: Operation;
  /** A fixture file or folder, below the tree root. */
  target: string;
}

interface Result extends Cell {
  proxy: Verdict;
  direct: Verdict;
  finding: Finding | null;
  /** Rights of the user on the file the service left beyond those before and those the direct operation left. */
  widened: number;
}

const slug = (op: Operation): string => op.name.toLowerCase().replaceAll(/[^a-z]+/g, '-');

describe(`write oracle (ORACLE_SEED=${SEED})`, () => {
  const next = seededRandom(SEED);
  const root = `_wo-${randomBytes(3).toString('hex')}`;
  const smb = new SmbClient();
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const all = <T, R>(items: readonly T[], job: (item: T) => Promise<R>): Promise<R[]> => Promise.all(items.map((item) => queue.add(() => job(item)) as Promise<R>));
  let env: TestbedEnv;
  let admin: SmbShare;
  let users: Record<User, SmbShare>;
  let setups: Scenario;
  let service: RunningService | undefined;
  let accounts: ScratchAccounts | undefined;
  /** The portal's account (wiki.trusted_callers) that names the user in the delegated mode. */
  let portal: Account;
  let keytabDir: string | undefined;
  const results: Result[] = [];
  const treeOf = (side: 'proxy' | 'direct', mode: Mode, user: User, op: Operation): string => `${root}/${mode}/${side}/${user}/${slug(op)}`;
  const smbclientTree = (user: User): string => `${root}/smbclient/${user}`;
  const targetsOf = (op: Operation): string[] => (op.on === 'file' ? setups.files.map((f) => f.path) : setups.folders.map((f) => f.name));
  let nameOf: (sid: string) => string;
  const states = (paths: string[]): Promise<PathState[]> => Promise.all(paths.map((p) => stateOf(admin, p, nameOf)));

  /** Every path of a tree (relative) with its state: two trees are identical when these are. */
  async function treeState(tree: string): Promise<string> {
    const entries: string[] = [];
    for await (const e of admin.walk(tree)) entries.push(e.path);
    const list = await all(entries.sort(), async (p) => [p.slice(tree.length + 1), await stateOf(admin, p, nameOf)] as const);
    return JSON.stringify([await stateOf(admin, tree, nameOf), list]);
  }

  before(async () => {
    env = await readTestbedEnv();
    const as = (name: string): SmbShare => {
      const a = name === 'admin' ? env.dc_admin : account(env, name);
      return testbedShare(smb, env, a, SHARE);
    };
    admin = as('admin');
    users = Object.fromEntries(USERS.map((u) => [u, as(u)])) as Record<User, SmbShare>;
    setups = scenario(env);
    nameOf = sidNamer(env);
    const built = Date.now();
    await admin.mkdir(root);
    await admin.mkdir(`${root}/smbclient`);
    for (const mode of MODES) {
      await admin.mkdir(`${root}/${mode}`);
      for (const side of ['proxy', 'direct']) await admin.mkdir(`${root}/${mode}/${side}`);
      await Promise.all(['proxy', 'direct'].flatMap((side) => USERS.map((u) => admin.mkdir(`${root}/${mode}/${side}/${u}`))));
    }
    const trees = [
      ...MODES.flatMap((mode) => USERS.flatMap((u) => OPERATIONS.flatMap((op) =>
        [treeOf('proxy', mode, u, op), treeOf('direct', mode, u, op)].map((tree) => ({ tree, sources: op.sources ?? false }))))),
      ...USERS.map((u) => ({ tree: smbclientTree(u), sources: false })),
    ];
    const authors = { admin, ben: users.ben, carla: users.carla };
    const building = new PQueue({ concurrency: 6 });
    await Promise.all(trees.map(({ tree, sources }) => building.add(() => buildTree(env, authors, tree, setups, sources))));
    // Identical copies: every tree equals the first one built alike (the same paths, owners, DACLs, attributes, content).
    const snapshots = await Promise.all(trees.map(({ tree }) => treeState(tree)));
    trees.forEach(({ tree, sources }, i) => {
      const first = trees.findIndex((t) => t.sources === sources);
      assert.equal(snapshots[i], snapshots[first], `${tree} is identical to ${trees[first]!.tree}`);
    });
    console.log(`write oracle: ${trees.length} trees of ${setups.folders.length} folders and ${setups.files.length} files built and compared in ${((Date.now() - built) / 1000).toFixed(1)} s`);
    for (const { name, setup } of [...setups.folders.map((f) => ({ name: `${f.name}/`, setup: f.setup })), ...setups.files.map((f) => ({ name: f.path, setup: f.setup }))]) {
      console.log(`  ${name}: ${setup}`);
    }
    await ensureDelegationAccounts();
    accounts = new ScratchAccounts(env);
    const created = await accounts.createUser(`${root.slice(1)}-portal`);
    portal = { user: created.name, password: created.password };
    keytabDir = await mkdtemp(path.join(tmpdir(), 'write-oracle-keytab-'));
    const keytab = path.join(keytabDir, 'proxy.keytab');
    await exportKeytab(delegationAccount.user, keytab);
    // The users' own logons stay as the testbed's mode makes them (ownLogonAuth); the portal's requests reach SMB by delegation.
    service = await startService({
      wiki: { trusted_callers: [portal.user] },
      smb: { auth: ownLogonAuth(env) },
      kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: keytab } },
    });
  });

  after(async () => {
    try {
      await service?.stop();
    } finally {
      await removeOnDisk(env, SHARE, root);
      await smb.close();
      await accounts?.removeAll();
      if (keytabDir) await rm(keytabDir, { recursive: true, force: true });
    }
  });

  async function runCell(cell: Cell): Promise<Result> {
    const { mode, user, op, target } = cell;
    const dav = mode === 'own' ? new DavClient(service!, account(env, user)) : new DavClient(service!, portal, SHARE, { 'x-service-user': user });
    const proxyTarget = `${treeOf('proxy', mode, user, op)}/${target}`;
    const directTarget = `${treeOf('direct', mode, user, op)}/${target}`;
    const rightsBefore = op.on === 'file' ? await rightsOf(users[user], proxyTarget) : 0;
    const pristine = await states(op.touched(proxyTarget));
    const [proxy, direct] = await Promise.all([op.proxy(dav, proxyTarget), op.direct(users[user], directTarget)]);
    const [proxyState, directState] = await Promise.all([states(op.touched(proxyTarget)), states(op.touched(directTarget))]);
    let widened = 0;
    if (proxy.allowed && direct.allowed && op.leavesFile) {
      const [after, directAfter] = await Promise.all([rightsOf(users[user], op.touched(proxyTarget)[0]!), rightsOf(users[user], op.touched(directTarget)[0]!)]);
      widened = after & ~rightsBefore & ~directAfter;
    }
    const paths = op.touched(target); // below the tree root, for the report
    return { ...cell, proxy, direct, finding: findingOf(op, proxy, direct, { paths, before: pristine, proxy: proxyState, direct: directState }), widened };
  }

  it('the service allows what the file server allows, no more, and leaves what a direct SMB operation leaves', async () => {
    const started = Date.now();
    const cells: Cell[] = MODES.flatMap((mode) => USERS.flatMap((user) => OPERATIONS.flatMap((op) => targetsOf(op).map((target) => ({ mode, user, op, target })))));
    // A seeded order: the cells run concurrently, and which ones meet differs from run to run.
    const order = cells.map((cell) => ({ cell, key: next() })).sort((a, b) => a.key - b.key).map((c) => c.cell);
    results.push(...(await all(order, runCell)));
    // Reported in the matrix's order: by operation, target, user.
    results.sort((a, b) => MODES.indexOf(a.mode) - MODES.indexOf(b.mode) || OPERATIONS.indexOf(a.op) - OPERATIONS.indexOf(b.op) || a.target.localeCompare(b.target) || USERS.indexOf(a.user) - USERS.indexOf(b.user));

    const line = (r: Result): string => `${r.user}${r.mode === 'own' ? '' : ` (${r.mode})`} ${r.target} ${r.op.name}: service ${r.proxy.status}, file server ${r.direct.status}`;
    const found = (kind: Finding['kind']): (Result & { finding: Finding })[] => results.filter((r): r is Result & { finding: Finding } => r.finding?.kind === kind);
    const escalations = found('escalation');
    const misses = found('miss');
    const effects = found('effect');
    const partial = found('partial');
    const widened = results.filter((r) => r.widened !== 0);
    const missKinds = new Map<string, number>();
    for (const r of misses) missKinds.set(r.finding.why, (missKinds.get(r.finding.why) ?? 0) + 1);
    const allowed = results.filter((r) => r.direct.allowed).length;
    console.log(
      `write oracle (ORACLE_SEED=${SEED}): matrix ${results.length} cells from ${MODES.length} modes (${MODES.join(', ')}) x ${USERS.length} users x (${setups.files.length} files x ` +
        `${OPERATIONS.filter((o) => o.on === 'file').length} file operations + ${setups.folders.length} folders x ${OPERATIONS.filter((o) => o.on === 'folder').length} ` +
        `folder operations); file server allowed ${allowed}, refused ${results.length - allowed}; service allowed ${results.filter((r) => r.proxy.allowed).length}; ` +
        `escalations ${escalations.length}; misses ${misses.length} ${JSON.stringify(Object.fromEntries(missKinds))}; effects differing ${effects.length}; ` +
        `rights widened ${widened.length}; refused after a partial change, as over SMB ${partial.length}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const r of escalations) console.log(`  ESCALATION ${line(r)} (${r.finding.why})`);
    for (const r of misses) console.log(`  miss${isDocumented(r.finding) ? '' : ' UNDOCUMENTED'} ${line(r)}`);
    for (const r of effects) console.log(`  EFFECT ${line(r)}: ${r.finding.why}`);
    for (const r of widened) console.log(`  RIGHTS WIDENED ${line(r)}: ${rightNames(r.widened)}`);
    for (const r of partial) console.log(`  partial ${line(r)}: ${r.finding.why}`);

    // Temporary files the service left in its trees (the cells compare only the paths they name).
    const leftovers: string[] = [];
    for (const user of USERS) {
      for (const [mode, op] of MODES.flatMap((m) => OPERATIONS.map((o) => [m, o] as const))) {
        for await (const e of admin.walk(treeOf('proxy', mode, user, op))) if (TEMP_NAME.test(e.name)) leftovers.push(`${user} ${op.name}: ${e.path}`);
      }
    }
    console.log(`write oracle: temporary files left in the service's trees: ${leftovers.length}`);
    for (const l of leftovers) console.log(`  LEFTOVER ${l}`);

    // Guards: a degenerate fixture or run must not pass.
    assert.ok(results.length >= MIN_MATRIX * MODES.length, `matrix of ${results.length} cells`);
    for (const mode of MODES) {
      const mine = results.filter((r) => r.mode === mode);
      console.log(`  ${mode}: service allowed ${mine.filter((r) => r.proxy.allowed).length} of ${mine.length}, file server ${mine.filter((r) => r.direct.allowed).length}`);
    }
    for (const op of OPERATIONS) {
      const mine = results.filter((r) => r.op === op);
      const granted = mine.filter((r) => r.direct.allowed).length;
      const byUser = USERS.map((u) => `${u} ${mine.filter((r) => r.user === u && r.direct.allowed).length}`).join(', ');
      console.log(`  ${op.name}: file server allowed ${granted} of ${mine.length} (${byUser}), the service ${mine.filter((r) => r.proxy.allowed).length}`);
      assert.ok(granted >= mine.length * ALLOWED_BAND[0] && granted <= mine.length * ALLOWED_BAND[1], `${op.name}: the file server allowed ${granted} of ${mine.length}, outside ${ALLOWED_BAND.join('-')}`);
      const differ = targetsOf(op).some((t) => new Set(mine.filter((r) => r.target === t).map((r) => r.direct.allowed)).size > 1);
      assert.ok(differ, `${op.name}: the file server's verdicts differ between users for some target`);
    }
    assert.deepEqual(escalations.map(line), [], 'escalations');
    assert.deepEqual(misses.filter((r) => !isDocumented(r.finding)).map(line), [], `misses of kinds other than ${Object.keys(DOCUMENTED_MISSES).join(', ') || 'none'}`);
    assert.deepEqual(effects.map(line), [], 'owner, DACL and content as the direct operation leaves them');
    assert.deepEqual(widened.map(line), [], 'rights no wider than before');
    assert.deepEqual(leftovers, [], 'no temporary files left behind');
  });

  it('Samba\'s smbclient agrees with the project\'s SMB client on a sample of direct verdicts', async () => {
    assert.ok(results.length > 0, 'the matrix ran');
    const local = await mkdtemp(path.join(tmpdir(), 'write-oracle-'));
    const bodyFile = (op: Operation): string => path.join(local, `${slug(op)}.txt`);
    // One operation per target and user in that user's tree, so that no two touch the same name.
    const sample = USERS.flatMap((user) => [...setups.files.map((f) => f.path), ...setups.folders.map((f) => f.name)].map((target) => {
      const fits = OPERATIONS.filter((op) => op.smbclient && targetsOf(op).includes(target));
      return { user, target, op: fits[Math.floor(next() * fits.length)]! };
    }));
    const disagree: string[] = [];
    const statuses = new Map<string, number>();
    try {
      for (const op of OPERATIONS) if (op.body) await writeFile(bodyFile(op), op.body);
      await all(sample, async ({ user, target, op }) => {
        const command = op.smbclient!(`${smbclientTree(user)}/${target}`, bodyFile(op));
        // The same NT status, not only the same verdict: a failed logon must not pass for a refusal.
        const status = await smbclientStatus({ user, password: account(env, user).password }, SHARE, command);
        const direct = results.find((r) => r.mode === 'own' && r.user === user && r.op === op && r.target === target)!.direct;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status !== direct.status) disagree.push(`${user} ${target} ${op.name} (${command}): smbclient ${status}, SmbClient ${direct.status}`);
      });
    } finally {
      await rm(local, { recursive: true, force: true });
    }
    console.log(`write oracle: smbclient sample of ${sample.length} direct verdicts ${JSON.stringify(Object.fromEntries(statuses))}; disagreeing ${disagree.length}`);
    for (const d of disagree) console.log(`  DISAGREE ${d}`);
    assert.ok(statuses.has('SUCCESS') && statuses.size > 1, 'the sample holds allowed and refused operations');
    assert.deepEqual(disagree, [], 'smbclient and the project\'s client agree');
  });
});

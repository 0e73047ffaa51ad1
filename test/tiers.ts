// Which test files run where (test/run-tests.ts runs the stages one after another; the tiers of a stage side by side):
// - unit: no servers; one process per file, as many at a time as the machine has cores.
// - parallel: integration files that use the testbed as any client would. Each runs its services on its own index
//   (elasticsearch.index_prefix from its file name, test/support/service.ts) and writes below scratch folders of
//   its own, so a few run side by side: they mostly wait on Samba and Elasticsearch.
// - abuse: the abuse campaigns (test/abuse/), two at a time among themselves. Each compares a picture of every share
//   before and after, leaving out the `_…` scratch folders, which are all that the campaigns write; integration
//   files write elsewhere too, so the campaigns do not run beside them. Each measures only its own service's memory.
// - quiet and self-contained, side by side, one file of each at a time: files that need the shares to themselves (no
//   other file writing to them: a pass over a whole share, counts of a whole share) but change nothing for others,
//   beside files that neither write pages to the shares nor change the testbed and whose load is their own (an
//   Elasticsearch node of their own, tickets that run out within seconds); these read the shares as the parallel
//   tier's files do, so what they check must hold while the quiet files write and delete their scratch folders
//   (ci26: a search of the whole share found the reindex test's 2,000 pages).
// - serial: files that change the testbed for everyone, or whose checks another file's traffic would disturb,
//   one at a time after the others, in the order of their entries below. A file is serial by an entry below, with
//   the reason: add one when a test stops a server, changes the DC, starts more Elasticsearch nodes, writes pages by
//   the thousand, compares a whole share, or times itself; its `lane` puts it in the quiet or self-contained tier
//   instead when it holds to theirs.
// - filler: files that use no server, compute for seconds and measure no time (fuzzers, parsers, checks of the source
//   tree, lintian on the Debian package), beside the serial tier at the lowest CPU priority (test/run-tests.ts,
//   lowestPriority), once the cluster test is done: that tier waits more than it computes (59-69 % of two cores
//   busy). They still cost some serial files time (docs/development.md, the filler tier). In a run without serial
//   files (npm run test:fast, a run of some files) they run in the unit tier.
// - smoke: one quick file per integration area, run after the unit tests by `npm run test:fast`.

export type Tier = 'unit' | 'parallel' | 'abuse' | 'quiet' | 'self-contained' | 'serial' | 'filler';

/** The tiers in the order they run; the tiers of one stage run side by side. */
export const STAGES: readonly (readonly Tier[])[] = [['unit'], ['parallel'], ['abuse'], ['quiet', 'self-contained'], ['serial', 'filler']];

interface SerialEntry {
  /** A file (without .test.ts) or a folder (ending in /), relative to test/. */
  path: string;
  why: string;
  /** The tier that runs it, when not `serial` (see above). */
  lane?: 'quiet' | 'self-contained';
  /**
   * What the runner starts when the serial tier starts, for this file (which finds it running), and stops after the
   * tier: the 3-node cluster takes 20 s with more than one core busy, which the first files of the tier, waiting on
   * the DC more than they compute, leave free.
   */
  startedAhead?: 'cluster';
}

export const SERIAL: readonly SerialEntry[] = [
  { path: 'integration/kerberos/dav-delegation', why: 'makes the DC refuse NTLM (refuseNtlm): every other file logs on with NTLM' },
  { path: 'integration/kerberos/delegation', why: 'makes the DC refuse NTLM (refuseNtlm)' },
  { path: 'integration/kerberos/doctor', why: 'changes the delegation account svc-proxy (its password, its delegation settings), which every file that delegates logs on with' },
  { path: 'integration/kerberos/negotiate', why: 'makes the DC refuse NTLM (refuseNtlm)' },
  { path: 'integration/kerberos/smb', why: 'makes the DC refuse NTLM (refuseNtlm)' },
  { path: 'faults/cluster', why: 'starts a 3-node Elasticsearch cluster (memory and cores of a 2-core machine), writes 600 pages and compares the whole of both shares with its index', startedAhead: 'cluster' },
  { path: 'faults/', why: 'kill or stop the testbed\'s servers or the service\'s threads, and time the recovery' },
  { path: 'abuse/slowloris', why: 'holds ordinary requests to answering within a second while slow senders trickle' },
  { path: 'integration/wiki/live-burst', why: 'writes 5,000 pages into `schule`, which every other file\'s service watches and walks: their passes took minutes meanwhile (the migration test\'s switch in ci20, the ACL matrix\'s last pass in stop 51\'s CI)' },
  { path: 'integration/wiki/live-index', why: 'measures how soon a change reaches search, and the service\'s memory' },
  { path: 'integration/search/secured-elasticsearch', why: 'starts a second Elasticsearch node (memory of a 2-core machine)', lane: 'self-contained' },
  // It touches no share and changes nothing for the others, so either lane would do; the quiet one evens the two out
  // (in the run of 0e74e49, quiet 86 s and self-contained 90 s, then 24 s less of quiet with shared-index's 5 s interval).
  { path: 'integration/reconcile/back-pressure', why: 'starts an Elasticsearch node with a write queue of one', lane: 'quiet' },
  { path: 'integration/kerberos/renewal', why: 'counts on tickets of 8 s renewed in time, which a tier of files that compute could delay (it logs on with Kerberos only, so it needs no NTLM refused)', lane: 'self-contained' },
  { path: 'integration/reconcile/drift', why: 'compares the index with the whole of two shares, which other files write to', lane: 'quiet' },
  { path: 'integration/reconcile/reindex', why: 'compares the index of the whole share before and after a reindex, which other files\' writes would change', lane: 'quiet' },
  { path: 'integration/reconcile/pipeline', why: 'runs passes over the whole shares and expects the second to find nothing new', lane: 'quiet' },
  { path: 'integration/reconcile/watch-scope', why: 'counts every deletion the change watch reports in the share, other files\' included', lane: 'quiet' },
  { path: 'integration/reconcile/shared-index', why: 'counts a whole share\'s documents before and after its jobs, while other files add and delete pages', lane: 'quiet' },
  { path: 'integration/reconcile/pace', why: 'reindexes the whole share at the gentle pace (down to 5 pages/s): other files\' scratch pages would make it take many minutes', lane: 'quiet' },
];

/**
 * The filler tier (see above): files that use no server, keep a core busy for seconds and hold no timer or clock, so
 * that getting a core late only makes them end later (test/unit/test-tiers.test.ts checks their source for timers,
 * clocks and imports of the testbed or the service). In the run of e747ffd all but the type check took 31 of the
 * unit tier's 65 core-seconds (test/support/file-cpu.ts); the type check takes about 12 (tsc --noEmit, unit/typecheck).
 */
export const FILLERS: readonly string[] = [
  'unit/kerberos/messages',
  'unit/smb/fuzz',
  'unit/kerberos/acceptor',
  'unit/kerberos/pac',
  'unit/import-rule',
  'unit/openapi/document',
  'unit/config/check-config',
  'unit/webdav/dead-property-memory',
  'unit/typecheck',
  'unit/cli/help',
  // lintian: 15-19 core-seconds of the parallel tier's runs while it was part of the install test.
  'integration/package/lintian',
];

/** One quick file per integration area: the inner loop's check that the service still talks to the testbed. */
export const SMOKE: readonly string[] = [
  'integration/testbed',
  'integration/smb/protocol',
  'integration/kerberos/kdc',
  'integration/ldap/directory',
  'integration/logins/throttle',
  'integration/observability/metrics-and-logs',
  'integration/reconcile/pipeline',
  'integration/search/testbed-wiki',
  'integration/webdav/access',
  'integration/webhooks/admin-api',
  'integration/wiki/visibility',
  'integration/admin-ui/admin-page',
];

/**
 * Files that take the better part of a minute or more (run-tests.ts lists each run's slowest), started first in their
 * tier: started last, as the alphabet puts most of them, they leave the tier's end to one or two files while the
 * other places stand idle.
 */
export const LONG_RUNNING: readonly string[] = [
  'unit/kerberos/messages',
  'unit/kerberos/gss',
  'unit/pacing/pacer',
  'unit/http-server',
  'integration/package/install',
  'integration/wiki/permission-oracle',
  'integration/wiki/watch-delete',
  'integration/webdav/write-oracle',
  'integration/wiki/acl-matrix',
  'integration/wiki/migration',
  'integration/webhooks/restart',
  'integration/search/relevance',
  'integration/webdav/accounts',
  'abuse/dav-floods',
  'abuse/login-names',
  'abuse/account-spellings',
  'abuse/directory-floods',
  'abuse/webdav',
];

/**
 * A tier's files in the order they start: the long-running ones first, then the ones with an entry in SERIAL in the
 * order of their entries (so that the serial tier's first files leave the cores free while the cluster starts), then
 * the others as given.
 */
export function startOrder(files: readonly string[]): string[] {
  const rank = (file: string) => {
    const long = LONG_RUNNING.indexOf(file.replace(/\.test\.js$/, ''));
    if (long !== -1) return long;
    const entry = serialEntryOf(file);
    return LONG_RUNNING.length + (entry === undefined ? SERIAL.length : SERIAL.indexOf(entry));
  };
  return files.map((file, position) => ({ file, position })).sort((a, b) => rank(a.file) - rank(b.file) || a.position - b.position).map(({ file }) => file);
}

/** The entry that makes `file` (relative to the compiled test/, e.g. faults/smb.test.js) serial, if any. */
export function serialEntryOf(file: string): SerialEntry | undefined {
  const name = file.replace(/\.test\.js$/, '');
  return SERIAL.find(({ path }) => (path.endsWith('/') ? name.startsWith(path) : name === path));
}

export function tierOf(file: string): Tier {
  if (FILLERS.includes(file.replace(/\.test\.js$/, ''))) return 'filler';
  if (file.startsWith('unit/')) return 'unit';
  const serial = serialEntryOf(file);
  if (serial !== undefined) return serial.lane ?? 'serial';
  return file.startsWith('abuse/') ? 'abuse' : 'parallel';
}

/**
 * The tier each of `files` runs in, in a run of them: a filler has no serial tier to fill without serial files, and
 * runs in the unit tier then, as a file that starts no service.
 */
export function tiersInRun(files: readonly string[]): Map<string, Tier> {
  const tiers = new Map(files.map((file) => [file, tierOf(file)]));
  if (![...tiers.values()].includes('serial')) for (const [file, tier] of tiers) if (tier === 'filler') tiers.set(file, 'unit');
  return tiers;
}

export function isSmoke(file: string): boolean {
  return SMOKE.includes(file.replace(/\.test\.js$/, ''));
}

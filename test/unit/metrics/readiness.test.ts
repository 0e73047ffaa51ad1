// GET /readyz's report: every needed dependency up, results reused for a while and answered while a newer one is on
// its way; states only in the report (it is answered without authentication), the reasons in the log once per change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLog, type Logger } from '../../../src/common/logger.js';
import { Readiness, type DependencyProbe, type ProbeResult } from '../../../src/metrics/readiness.js';

/** A probe that answers what `answers` says next and counts its runs. */
function probe(name: string, answers: (() => Promise<ProbeResult>)[], server?: string): DependencyProbe & { runs: number } {
  const p = {
    name,
    ...(server === undefined ? {} : { server }),
    runs: 0,
    run: () => answers[Math.min(p.runs++, answers.length - 1)]!(),
  };
  return p;
}
/** Lets the probe runs that a report started settle (their answers here are promises already resolved). */
const settle = () => new Promise((resolve) => setImmediate(resolve));
const up = (detail = 'fine') => async (): Promise<ProbeResult> => ({ up: true, detail });
const down = (detail = 'gone') => async (): Promise<ProbeResult> => ({ up: false, detail });

/** A logger that keeps what it is told. */
function recorder(): Logger & { lines: { level: string; details: object; message: string }[] } {
  const lines: { level: string; details: object; message: string }[] = [];
  return {
    lines,
    info: (details, message) => { lines.push({ level: 'info', details, message }); },
    warn: (details, message) => { lines.push({ level: 'warn', details, message }); },
  };
}

describe('Readiness', () => {
  it('is ready when every probe is up, with a state per dependency and no detail', async () => {
    const readiness = new Readiness([probe('elasticsearch', [up('cluster edu at http://es1:9200 is green')]), probe('ldap', [up('bound')])], silentLog);
    const report = await readiness.report();
    assert.equal(report.status, 'ready');
    assert.deepEqual(Object.keys(report.checks), ['elasticsearch', 'ldap']);
    assert.deepEqual(Object.keys(report.checks['elasticsearch']!).sort(), ['checked_at', 'duration_ms', 'status']);
    assert.equal(report.checks['elasticsearch']!.status, 'up');
    assert.ok(!Number.isNaN(Date.parse(report.checks['ldap']!.checked_at)));
  });

  it('is not ready when one is down; a disabled dependency does not count', async () => {
    const readiness = new Readiness([
      { name: 'elasticsearch', disabled: 'elasticsearch.enabled is false', run: () => Promise.reject(new Error('must not run')) },
      probe('ldap', [() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.2:636'))]),
    ], silentLog);
    const report = await readiness.report();
    assert.equal(report.status, 'not_ready');
    assert.deepEqual([report.checks['elasticsearch']!.status, report.checks['ldap']!.status], ['disabled', 'down']);

    const withoutTheDown = new Readiness([{ name: 'elasticsearch', disabled: 'off', run: up() }, probe('ldap', [up()])], silentLog);
    assert.equal((await withoutTheDown.report()).status, 'ready');
  });

  it('reports the file servers as one check: up, degraded or down, with how many answer; degraded is not ready', async () => {
    const servers = (answers: (() => Promise<ProbeResult>)[]) => answers.map((answer, i) => probe('smb', [answer], `smb://fs${i}:445`));
    const all = await new Readiness(servers([up(), up()]), silentLog).report();
    assert.deepEqual([all.status, all.checks['smb']!.status, all.checks['smb']!.servers], ['ready', 'up', { up: 2, total: 2 }]);
    const some = await new Readiness(servers([up(), down()]), silentLog).report();
    assert.deepEqual([some.status, some.checks['smb']!.status, some.checks['smb']!.servers], ['not_ready', 'degraded', { up: 1, total: 2 }]);
    const none = await new Readiness(servers([down(), down()]), silentLog).report();
    assert.deepEqual([none.checks['smb']!.status, none.checks['smb']!.servers], ['down', { up: 0, total: 2 }]);
    assert.deepEqual(Object.keys(none.checks), ['smb']);
  });

  it('logs the detail, with the server, once per change of a probe\'s state, never in the report', async () => {
    let now = 1_000_000;
    const log = recorder();
    const fs1 = probe('smb', [down('fs1.edu.test:445 does not answer'), down('fs1.edu.test:445 does not answer'), up('session setup at fs1.edu.test:445')], 'smb://fs1.edu.test:445');
    const readiness = new Readiness([fs1], log, 5_000, () => now);
    const first = await readiness.report();
    now += 5_000;
    await readiness.report();
    await settle();
    assert.equal(fs1.runs, 2);
    assert.deepEqual(log.lines, [{
      level: 'warn', message: 'readiness: dependency down',
      details: { dependency: 'smb', server: 'smb://fs1.edu.test:445', detail: 'fs1.edu.test:445 does not answer' },
    }], 'the second run, as down as the first, logs nothing');
    now += 5_000;
    await readiness.report();
    await settle();
    const last = await readiness.report();
    assert.deepEqual(log.lines.map((l) => l.level), ['warn', 'info']);
    assert.equal(last.status, 'ready');
    for (const report of [first, last]) assert.doesNotMatch(JSON.stringify(report), /fs1|edu\.test|445/);
  });

  it('reuses a result for the cache time and shares the first probe', async () => {
    let now = 1_000_000;
    const ldap = probe('ldap', [down('bind failed'), up('bound')]);
    const readiness = new Readiness([ldap], silentLog, 5_000, () => now);
    const [first, concurrent] = await Promise.all([readiness.report(), readiness.report()]);
    assert.equal(ldap.runs, 1);
    assert.equal(first.status, 'not_ready');
    assert.deepEqual(concurrent, first);

    now += 4_999;
    assert.equal((await readiness.report()).checks['ldap']!.status, 'down');
    await settle();
    assert.equal(ldap.runs, 1);
  });

  it('answers with the last result while it probes again, once at a time, and waits when that one is too old', async () => {
    let now = 1_000_000;
    let answer!: (result: ProbeResult) => void;
    const slow = () => new Promise<ProbeResult>((resolve) => { answer = resolve; });
    const smb = probe('smb', [up('session setup'), slow, slow]);
    const readiness = new Readiness([smb], silentLog, 5_000, () => now);
    await readiness.report();

    now += 5_000;
    const [during, alsoDuring] = await Promise.all([readiness.report(), readiness.report()]);
    assert.equal(smb.runs, 2, 'one new run for both');
    for (const report of [during, alsoDuring]) {
      assert.equal(report.status, 'ready', 'the last result, not a wait for the logon');
      assert.equal(report.checks['smb']!.checked_at, new Date(1_000_000).toISOString());
    }
    answer({ up: true, detail: 'session setup' });
    await settle();
    now += 1;
    assert.equal((await readiness.report()).checks['smb']!.checked_at, new Date(1_005_000).toISOString());

    // Once the last result is as old as the keeping time and a probe's timeout (5 + 10 s), a call waits for the run.
    now = 1_020_000;
    let waited = false;
    const waiting = readiness.report().then((report) => { waited = true; return report; });
    await settle();
    assert.equal(waited, false, 'the result of 15 s ago is too old to answer with');
    answer({ up: true, detail: 'session setup' });
    assert.equal((await waiting).checks['smb']!.checked_at, new Date(1_020_000).toISOString());
    assert.equal(smb.runs, 3);
  });

  it('counts a dependency that was up as down after two failed probes in a row, the second at the next call', async () => {
    let now = 1_000_000;
    const log = recorder();
    const ldap = probe('ldap', [up('bound'), down('connect timed out'), down('connect timed out'), up('bound'), down('connect timed out'), up('bound')]);
    const readiness = new Readiness([ldap], log, 5_000, () => now);
    const statusNow = async () => { const report = await readiness.report(); await settle(); return report.status; };
    assert.equal(await statusNow(), 'ready');
    now += 5_000;
    assert.equal(await statusNow(), 'ready', 'the last result while the second probe runs');
    assert.equal(ldap.runs, 2);
    now += 1;
    assert.equal(await statusNow(), 'ready', 'one failed probe is held up, and the next call probes again');
    assert.equal(ldap.runs, 3);
    now += 1;
    assert.equal(await statusNow(), 'not_ready', 'two in a row: down');
    assert.equal(ldap.runs, 3, 'a down result is kept as long as any');
    now += 5_000;
    await statusNow();
    assert.equal(await statusNow(), 'ready', 'one probe that answers is up again');
    now += 5_000;
    await statusNow();
    now += 1;
    assert.equal(await statusNow(), 'ready', 'a failure after a success is held again');
    assert.equal(ldap.runs, 6);
    assert.deepEqual(log.lines.map((l) => [l.level, l.message]), [
      ['info', 'readiness: dependency up'],
      ['info', 'readiness: a probe failed; probing again before counting the dependency down'],
      ['warn', 'readiness: dependency down'],
      ['info', 'readiness: dependency up'],
      ['info', 'readiness: a probe failed; probing again before counting the dependency down'],
    ], 'a held failure that the next probe clears changes no state');
  });

  it('counts a probe that throws as down and probes it again later', async () => {
    let now = 1_000_000;
    const ldap = probe('ldap', [() => { throw new Error('bad config'); }, up('bound')]);
    const readiness = new Readiness([ldap], silentLog, 5_000, () => now);
    assert.equal((await readiness.report()).status, 'not_ready');
    now += 5_000;
    await readiness.report();
    await settle();
    assert.equal((await readiness.report()).status, 'ready');
  });
});

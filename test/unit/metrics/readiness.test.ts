// GET /readyz's report: every needed dependency up, results reused for a while; states only in the report (it is
// answered without authentication), the reasons in the log once per change.
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
    assert.equal(fs1.runs, 2);
    assert.deepEqual(log.lines, [{
      level: 'warn', message: 'readiness: dependency down',
      details: { dependency: 'smb', server: 'smb://fs1.edu.test:445', detail: 'fs1.edu.test:445 does not answer' },
    }], 'the second run, as down as the first, logs nothing');
    now += 5_000;
    const last = await readiness.report();
    assert.deepEqual(log.lines.map((l) => l.level), ['warn', 'info']);
    for (const report of [first, last]) assert.doesNotMatch(JSON.stringify(report), /fs1|edu\.test|445/);
  });

  it('reuses a result for the cache time, shares a running probe, and probes again afterwards', async () => {
    let now = 1_000_000;
    const ldap = probe('ldap', [down('bind failed'), up('bound')]);
    const readiness = new Readiness([ldap], silentLog, 5_000, () => now);
    const [first, concurrent] = await Promise.all([readiness.report(), readiness.report()]);
    assert.equal(ldap.runs, 1);
    assert.equal(first.status, 'not_ready');
    assert.deepEqual(concurrent, first);

    now += 4_999;
    assert.equal((await readiness.report()).checks['ldap']!.status, 'down');
    assert.equal(ldap.runs, 1);

    now += 1;
    const later = await readiness.report();
    assert.equal(ldap.runs, 2);
    assert.equal(later.status, 'ready');
    assert.equal(later.checks['ldap']!.checked_at, new Date(now).toISOString());
  });
});

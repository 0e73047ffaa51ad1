// GET /readyz's report: every needed dependency up, results reused for a while, errors as details.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Readiness, type DependencyProbe, type ProbeResult } from '../../../src/metrics/readiness.js';

/** A probe that answers what `answers` says next and counts its runs. */
function probe(name: string, answers: (() => Promise<ProbeResult>)[]): DependencyProbe & { runs: number } {
  const p = {
    name,
    runs: 0,
    run: () => answers[Math.min(p.runs++, answers.length - 1)]!(),
  };
  return p;
}
const up = (detail = 'fine') => async (): Promise<ProbeResult> => ({ up: true, detail });
const down = (detail = 'gone') => async (): Promise<ProbeResult> => ({ up: false, detail });

describe('Readiness', () => {
  it('is ready when every probe is up, with a check per dependency', async () => {
    const readiness = new Readiness([probe('elasticsearch', [up('green')]), probe('ldap', [up('bound')])]);
    const report = await readiness.report();
    assert.equal(report.status, 'ready');
    assert.deepEqual(Object.keys(report.checks), ['elasticsearch', 'ldap']);
    assert.equal(report.checks['elasticsearch']!.status, 'up');
    assert.equal(report.checks['elasticsearch']!.detail, 'green');
    assert.ok(!Number.isNaN(Date.parse(report.checks['ldap']!.checked_at)));
  });

  it('is not ready when one is down; a disabled dependency does not count; a thrown error becomes the detail', async () => {
    const readiness = new Readiness([
      { name: 'elasticsearch', disabled: 'elasticsearch.enabled is false', run: () => Promise.reject(new Error('must not run')) },
      probe('ldap', [up()]),
      probe('smb://fs1:445', [() => Promise.reject(new Error('connect ECONNREFUSED'))]),
    ]);
    const report = await readiness.report();
    assert.equal(report.status, 'not_ready');
    assert.deepEqual(report.checks['elasticsearch']!.status, 'disabled');
    assert.deepEqual(report.checks['smb://fs1:445']!, { ...report.checks['smb://fs1:445']!, status: 'down', detail: 'connect ECONNREFUSED' });

    const withoutTheDown = new Readiness([{ name: 'elasticsearch', disabled: 'off', run: up() }, probe('ldap', [up()])]);
    assert.equal((await withoutTheDown.report()).status, 'ready');
  });

  it('reuses a result for the cache time, shares a running probe, and probes again afterwards', async () => {
    let now = 1_000_000;
    const ldap = probe('ldap', [down('bind failed'), up('bound')]);
    const readiness = new Readiness([ldap], 5_000, () => now);
    const [first, concurrent] = await Promise.all([readiness.report(), readiness.report()]);
    assert.equal(ldap.runs, 1);
    assert.equal(first.status, 'not_ready');
    assert.deepEqual(concurrent, first);

    now += 4_999;
    assert.equal((await readiness.report()).checks['ldap']!.detail, 'bind failed');
    assert.equal(ldap.runs, 1);

    now += 1;
    const later = await readiness.report();
    assert.equal(ldap.runs, 2);
    assert.equal(later.status, 'ready');
    assert.equal(later.checks['ldap']!.checked_at, new Date(now).toISOString());
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReindexArgs } from '../../../src/cli/reindex-options.js';
import { expectedTotal, formatDuration, progressBar, progressLine, summaryText } from '../../../src/cli/reindex-progress.js';
import { Job, type JobInfo } from '../../../src/indexing/reconciler/jobs.js';

const DEFAULT = '/etc/edu-fileproxy/config.yml';

describe('fileproxy reindex arguments', () => {
  it('takes shares, --all, --rebuild and the flags', () => {
    assert.deepEqual(parseReindexArgs(['--share', 'schule', '--share=verwaltung', '--dry-run']), {
      options: { shares: ['schule', 'verwaltung'], rebuild: false, dryRun: true, json: false, configFile: DEFAULT },
    });
    assert.deepEqual(parseReindexArgs(['--all', '--json', '--config', '/x/config.yml']), {
      options: { shares: 'all', rebuild: false, dryRun: false, json: true, configFile: '/x/config.yml' },
    });
    assert.deepEqual(parseReindexArgs(['--rebuild']), {
      options: { shares: 'all', rebuild: true, dryRun: false, json: false, configFile: DEFAULT },
    });
    assert.deepEqual(parseReindexArgs(['--all', '--help']), { help: true });
  });

  it('refuses what does not make sense, naming the problem', () => {
    const error = (args: string[]) => ('error' in parseReindexArgs(args) ? (parseReindexArgs(args) as { error: string }).error : 'accepted');
    assert.match(error([]), /--share <name>, or --all/);
    assert.match(error(['--share']), /--share needs a share name/);
    assert.match(error(['--share', '--all']), /--share needs a share name/);
    assert.match(error(['--share', 'a', '--all']), /either --share or --all/);
    assert.match(error(['--rebuild', '--share', 'a']), /--rebuild always rebuilds from every share/);
    assert.match(error(['--all', '--dry-run=yes']), /--dry-run takes no value/);
    assert.match(error(['--all', '--config']), /--config needs a file/);
    assert.match(error(['--all', 'schule']), /unknown argument: schule/);
  });
});

function running(changes: Partial<JobInfo>): JobInfo {
  const job = new Job(7, { kind: 'reindex', shares: ['schule'], dryRun: false }, 'admin');
  return { ...job.snapshot(), state: 'running', startedAt: new Date().toISOString(), current: 'schule', ...changes };
}

describe('fileproxy reindex progress', () => {
  it('formats durations', () => {
    assert.equal(formatDuration(0), '0:00');
    assert.equal(formatDuration(65_400), '1:05');
    assert.equal(formatDuration(3_723_000), '1:02:03');
  });

  it('estimates the total from the index until the walk is done, then knows it', () => {
    assert.equal(expectedTotal(running({ seen: 10, expected: null })), null);
    assert.equal(expectedTotal(running({ seen: 10, expected: 2000 })), 2000);
    assert.equal(expectedTotal(running({ seen: 10, expected: 5 })), null, 'an estimate below what was found is no estimate');
    assert.equal(expectedTotal(running({ seen: 10, unreadable: 2, walked: true, expected: 2000 })), 12);
  });

  it('shows found, indexed, rate, elapsed and ETA', () => {
    const info = running({ seen: 500, indexed: 400, durationMs: 10_000, expected: 2000 });
    assert.equal(progressBar(info, 90), `schule [${'#'.repeat(5)}${'-'.repeat(16)}]  25%  found 500  indexed 400  40/s  elapsed 0:10  ETA 0:30`);
    assert.equal(progressBar(info, 80).length, 79, 'cut to the terminal width');
    assert.equal(progressBar(info, 200), `schule [${'#'.repeat(8)}${'-'.repeat(22)}]  25%  found 500  indexed 400  40/s  elapsed 0:10  ETA 0:30`);
    assert.equal(progressLine(info), 'reindex: schule: found 500 of 2000, indexed 400 (40/s), removed 0, failed 0, elapsed 0:10, ETA 0:30');
    assert.match(progressBar(running({ seen: 3, durationMs: 1000 })), /^schule \[-+\]   \?%  found 3 .* ETA \?$/);
    assert.match(progressBar({ ...info, state: 'queued' }), /waiting for the running job/);
  });

  it('summarises finished, dry and stopped runs', () => {
    const done = { ...running({ seen: 20, added: 2, updated: 3, unchanged: 15, indexed: 20, removed: 1, durationMs: 2500 }), state: 'finished' as const };
    assert.equal(
      summaryText(done),
      [
        'reindex of schule finished in 2.5 s',
        '  pages found        20',
        '  indexed            20  (new 2, changed 3, unchanged 15)',
        '  removed            1',
        '  unreadable         0',
        '  failed             0',
        '',
      ].join('\n'),
    );
    assert.match(summaryText({ ...done, dryRun: true }), /^dry run of reindex of schule finished in 2.5 s \(nothing was changed\)\n.*\n  would be indexed/);
    assert.match(summaryText({ ...done, state: 'cancelled' }), /stopped after 2.5 s; what was done until then stays/);
    assert.match(summaryText({ ...done, state: 'failed', errors: ['share schule: connection lost'] }), /failed in 2.5 s[^]*error: share schule: connection lost/);
  });
});

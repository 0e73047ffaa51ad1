// bench/RESULTS.md's Summary is generated from the rows each section keeps (bench/results.ts), never edited by
// hand. At 72dab2a a benchmark run by name put its rows, with the unexpected-answers column, under an older header
// without it, and rows edited into the table by hand stayed there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judged, report, rowsOf, SUMMARY_HEADING, Unexpected, withSummary } from '../../../bench/results.js';

const row = (figure: string, met: boolean, unexpected?: Unexpected) =>
  judged({ figure, service: '2', peer: '1 (peer)', ratio: '2.00 ×', target: '≥ 1.5 ×' }, met, unexpected);

describe('bench results', () => {
  it('keeps a section\'s rows in the section, readable back', () => {
    const made = report('## Search', ['Run by ...'], [row('req/s', true, new Unexpected().add('service', 'degraded', 2)), row('RSS', true)]);
    const rows = rowsOf(made.section);
    assert.deepEqual(rows.map((r) => [r.figure, r.unexpected, r.met]), [['req/s', 'service: degraded ×2', false], ['RSS', undefined, true]]);
  });

  it('generates the whole Summary from the sections, in their order, whatever the old table held', () => {
    const old = [
      '# Benchmark results', '', 'A hand-written preamble.', '',
      SUMMARY_HEADING, '', '| benchmark | figure | this service | peer | ratio | target | |', '|---|---|---|---|---|---|---|',
      '| Gone | edited by hand | 1 | 1 | 1 × | ≥ 1 × | met |', '',
      report('## Search', ['Run by ...'], [row('req/s', true, new Unexpected())]).section, '',
      '## Notes', '', 'Written by hand, no rows.', '',
      report('## Memory', ['Run by ...'], [row('RSS', false)]).section, '',
    ].join('\n');
    const text = withSummary(old);
    const summary = text.slice(text.indexOf(SUMMARY_HEADING), text.indexOf('## Search'));
    const lines = summary.trim().split('\n').filter((l) => l.startsWith('|'));
    assert.deepEqual(lines, [
      '| benchmark | figure | this service | peer | ratio | target | unexpected answers | |',
      '|---|---|---|---|---|---|---|---|',
      '| Search | req/s | 2 | 1 (peer) | 2.00 × | ≥ 1.5 × | 0 | met |',
      '| Memory | RSS | 2 | 1 (peer) | 2.00 × | ≥ 1.5 × | – | MISSED |',
    ]);
    assert.ok(!text.includes('hand-written preamble'));
    assert.ok(text.includes('Written by hand, no rows.'));
    assert.equal(withSummary(text), text);
  });
});

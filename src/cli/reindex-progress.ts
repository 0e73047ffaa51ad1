// What `fileproxy reindex` shows of a job: a progress bar on a terminal, plain lines otherwise, and the summary.
// Pure formatting of the job reports the service sends (src/indexing/reconciler/jobs.ts).
import type { JobInfo } from '../indexing/reconciler/jobs.js';

/** Pages found so far (readable or not). */
function found(info: JobInfo): number {
  return info.seen + info.unreadable;
}

/** The number of pages to expect: exact once every walk is done, else the index's count if it is larger. */
export function expectedTotal(info: JobInfo): number | null {
  if (info.walked) return found(info);
  return info.expected !== null && info.expected > found(info) ? info.expected : null;
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

interface Rates {
  /** Documents written per second. */
  indexedPerSecond: number;
  /** Remaining time, when the total is known and pages are coming in. */
  etaMs: number | null;
}

function rates(info: JobInfo): Rates {
  const seconds = info.durationMs / 1000;
  const total = expectedTotal(info);
  const foundPerSecond = seconds > 0 ? found(info) / seconds : 0;
  return {
    indexedPerSecond: seconds > 0 ? info.indexed / seconds : 0,
    etaMs: total !== null && foundPerSecond > 0 ? ((total - found(info)) / foundPerSecond) * 1000 : null,
  };
}

function describeJob(info: JobInfo): string {
  const what = info.kind === 'rebuild' ? 'rebuild' : info.kind === 'pass' ? 'pass' : 'reindex';
  return `${info.dryRun ? 'dry run of ' : ''}${what} of ${info.shares.join(', ')}`;
}

/**
 * One line for a terminal of `columns` columns, the bar taking what the figures leave:
 * `schule [#####-----]  45%  found 900  indexed 850  212/s  elapsed 0:04  ETA 0:05`.
 */
export function progressBar(info: JobInfo, columns = 100): string {
  if (info.state === 'queued') return `${describeJob(info)}: waiting for the running job of the service to finish`.slice(0, columns - 1);
  const total = expectedTotal(info);
  const fraction = total === null || total === 0 ? null : Math.min(1, found(info) / total);
  const percent = fraction === null ? '  ?%' : `${String(Math.floor(fraction * 100)).padStart(3)}%`;
  const { indexedPerSecond, etaMs } = rates(info);
  const figures = [
    `found ${found(info)}`,
    `indexed ${info.indexed}`,
    `${Math.round(indexedPerSecond)}/s`,
    `elapsed ${formatDuration(info.durationMs)}`,
    `ETA ${etaMs === null ? '?' : formatDuration(etaMs)}`,
  ].join('  ');
  const label = info.current ?? info.shares.join(',');
  const width = Math.max(10, Math.min(30, columns - 1 - label.length - percent.length - figures.length - 6));
  const filled = fraction === null ? 0 : Math.round(fraction * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}  ${figures}`.slice(0, columns - 1);
}

/** One line for a log: `reindex: schule: found 900, indexed 850 (212/s), removed 0, failed 0, elapsed 4 s`. */
export function progressLine(info: JobInfo): string {
  if (info.state === 'queued') return `reindex: waiting for the running job of the service to finish`;
  const { indexedPerSecond, etaMs } = rates(info);
  const total = expectedTotal(info);
  return (
    `reindex: ${info.current ?? info.shares.join(',')}: found ${found(info)}${total === null ? '' : ` of ${total}`}, ` +
    `indexed ${info.indexed} (${Math.round(indexedPerSecond)}/s), removed ${info.removed}, failed ${info.failed}, ` +
    `elapsed ${formatDuration(info.durationMs)}${etaMs === null ? '' : `, ETA ${formatDuration(etaMs)}`}`
  );
}

/** The final report for people. */
export function summaryText(info: JobInfo): string {
  const seconds = (info.durationMs / 1000).toFixed(1);
  const would = info.dryRun ? 'would be ' : '';
  const head =
    info.state === 'cancelled'
      ? `${describeJob(info)} stopped after ${seconds} s; what was done until then stays`
      : `${describeJob(info)} ${info.state === 'finished' ? 'finished' : 'failed'} in ${seconds} s${info.dryRun ? ' (nothing was changed)' : ''}`;
  const rows: [string, string][] = [
    ['pages found', String(found(info))],
    [`${would}indexed`, `${info.indexed}  (new ${info.added}, changed ${info.updated}, unchanged ${info.unchanged})`],
    [`${would}removed`, String(info.removed)],
    ['unreadable', String(info.unreadable)],
    ['failed', String(info.failed)],
  ];
  if (info.skippedFolders > 0) rows.push(['folders skipped', String(info.skippedFolders)]);
  const lines = [head, ...rows.map(([label, value]) => `  ${label.padEnd(18)} ${value}`)];
  if (info.rebuild) lines.push(`  new index ${info.rebuild.to} (was ${info.rebuild.from ?? 'none'}), alias switched`);
  for (const error of info.errors) lines.push(`  error: ${error}`);
  return `${lines.join('\n')}\n`;
}

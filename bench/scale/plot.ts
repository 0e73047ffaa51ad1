/**
 * The scale bench's plot as SVG text: each figure divided by its value at the smallest size, against the page
 * count, on log-log axes (a figure that grows linearly runs parallel to the line y = n / n₀, one that stays flat
 * along y = 1), with that line and the targets' 1.15 × and 1.5 × drawn for reference.
 */

export interface Series {
  name: string;
  /** One value per size, in the order of the page counts; a value ≤ 0 or not finite is left out of the line. */
  values: number[];
}

const WIDTH = 960;
const HEIGHT = 480;
const PLOT = { left: 70, right: 560, top: 30, bottom: 420 };
const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const format = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(Number(n.toPrecision(n < 1 ? 2 : 3))));

/** Powers of 10 and their 2 and 5 multiples between `low` and `high`. */
function ticks(low: number, high: number): number[] {
  const out: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10) {
    for (const step of [1, 2, 5]) if (decade * step >= low && decade * step <= high) out.push(decade * step);
  }
  return out;
}

export function scalePlot(title: string, pages: number[], series: Series[]): string {
  const first = pages[0]!;
  const last = pages.at(-1)!;
  const normalised = series.map((s) => ({ name: s.name, points: s.values.map((v, i) => ({ n: pages[i]!, y: v / s.values[0]! })).filter((p) => Number.isFinite(p.y) && p.y > 0) }));
  const ys = normalised.flatMap((s) => s.points.map((p) => p.y));
  const yLow = Math.min(0.5, ...ys) * 0.9;
  const yHigh = Math.max(1.6, last / first, ...ys) * 1.1;
  const xLow = first * 0.9;
  const xHigh = last * 1.1;
  const x = (n: number) => PLOT.left + ((Math.log(n) - Math.log(xLow)) / (Math.log(xHigh) - Math.log(xLow))) * (PLOT.right - PLOT.left);
  const y = (v: number) => PLOT.bottom - ((Math.log(v) - Math.log(yLow)) / (Math.log(yHigh) - Math.log(yLow))) * (PLOT.bottom - PLOT.top);
  const line = (points: { n: number; y: number }[]) => points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.n).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${PLOT.left}" y="18" font-size="14">${escape(title)}</text>`,
    `<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.right - PLOT.left}" height="${PLOT.bottom - PLOT.top}" fill="none" stroke="#444"/>`,
  ];
  for (const v of ticks(yLow, yHigh)) {
    parts.push(`<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${PLOT.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${format(v)} ×</text>`);
  }
  for (const n of pages) {
    parts.push(`<line x1="${x(n).toFixed(1)}" x2="${x(n).toFixed(1)}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${x(n).toFixed(1)}" y="${PLOT.bottom + 16}" text-anchor="middle">${format(n)}</text>`);
  }
  parts.push(`<text x="${(PLOT.left + PLOT.right) / 2}" y="${PLOT.bottom + 34}" text-anchor="middle">pages (log)</text>`);
  parts.push(`<text transform="translate(16 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">figure ÷ its value at ${format(first)} pages (log)</text>`);
  const references = [
    { label: `linear (n ÷ ${format(first)})`, dash: '6 4', points: [{ n: first, y: 1 }, { n: last, y: last / first }] },
    { label: '1.5 ×', dash: '2 3', points: [{ n: first, y: 1.5 }, { n: last, y: 1.5 }] },
    { label: '1.15 ×', dash: '10 3 2 3', points: [{ n: first, y: 1.15 }, { n: last, y: 1.15 }] },
  ];
  const legend = (row: number, mark: string, label: string) => {
    const top = PLOT.top + 10 + row * 20;
    parts.push(`${mark.replace('{x1}', String(PLOT.right + 20)).replace('{x2}', String(PLOT.right + 50)).replaceAll('{y}', String(top))}`);
    parts.push(`<text x="${PLOT.right + 58}" y="${top + 4}">${escape(label)}</text>`);
  };
  for (const [i, ref] of references.entries()) {
    parts.push(`<path d="${line(ref.points)}" fill="none" stroke="#000" stroke-dasharray="${ref.dash}"/>`);
    legend(i, `<line x1="{x1}" x2="{x2}" y1="{y}" y2="{y}" stroke="#000" stroke-dasharray="${ref.dash}"/>`, ref.label);
  }
  for (const [i, s] of normalised.entries()) {
    const colour = COLOURS[i % COLOURS.length]!;
    parts.push(`<path d="${line(s.points)}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of s.points) parts.push(`<circle cx="${x(p.n).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3" fill="${colour}"/>`);
    legend(references.length + i, `<line x1="{x1}" x2="{x2}" y1="{y}" y2="{y}" stroke="${colour}" stroke-width="2"/>`, s.name);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

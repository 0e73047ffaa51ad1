/**
 * Ranking figures of one query's answer: `ranked` holds the grades (0 = not relevant, 1–3) of the hits in the order
 * the search gave them, `judged` the grades of every page judged for the query (its relevant pages). A page counts as
 * relevant when its grade is at least 1. The cut-off `k` is 10 in the bench (the hits of one answer page).
 */

const relevant = (grade: number): boolean => grade > 0;

/** Discounted cumulative gain of the first k grades, gain 2^grade − 1 and discount log2(rank + 1). */
export function dcgAt(grades: readonly number[], k: number): number {
  return grades.slice(0, k).reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
}

/** DCG@k of the answer over that of the ideal order of the judged pages; 0 when no page is relevant. */
export function ndcgAt(ranked: readonly number[], judged: readonly number[], k: number): number {
  const ideal = dcgAt([...judged].sort((a, b) => b - a), k);
  return ideal === 0 ? 0 : dcgAt(ranked, k) / ideal;
}

/** The share of the first k places taken by relevant pages (a short answer's empty places count as misses). */
export function precisionAt(ranked: readonly number[], k: number): number {
  return ranked.slice(0, k).filter(relevant).length / k;
}

/** The share of the relevant pages that are among the first k hits; 0 when no page is relevant. */
export function recallAt(ranked: readonly number[], judged: readonly number[], k: number): number {
  const all = judged.filter(relevant).length;
  return all === 0 ? 0 : ranked.slice(0, k).filter(relevant).length / all;
}

/** 1 / the rank of the first relevant hit among the first k, 0 when there is none. */
export function reciprocalRankAt(ranked: readonly number[], k: number): number {
  const first = ranked.slice(0, k).findIndex(relevant);
  return first === -1 ? 0 : 1 / (first + 1);
}

/** Whether a page of the highest judged grade is among the first `within` hits. */
export function bestWithin(ranked: readonly number[], judged: readonly number[], within: number): boolean {
  const best = Math.max(0, ...judged);
  return best > 0 && ranked.slice(0, within).includes(best);
}

export const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length);

/**
 * The judged queries (queries.json, a data file a reviewer reads) and the grade they give each page of the corpus:
 * the query's grade for the page's topic, less by the page's role (main 0, aspect 1, mention 2), never below 0.
 * Pages are graded by what the generator wrote them about (CorpusPage.topic and role), not by their words.
 */
import { readFileSync } from 'node:fs';
import type { CorpusPage, PageRole } from './corpus.js';
import { TOPICS } from './topics.js';

export const QUERIES_FILE = new URL('../../../bench/relevance/queries.json', import.meta.url);

export interface JudgedQuery {
  q: string;
  /** What kind of typing the query stands for (queries.json, "classes"). */
  class: string;
  must?: true;
  /** Topic id → grade 1–3. */
  topics: Record<string, number>;
}

const ROLE_PENALTY: Record<PageRole, number> = { main: 0, aspect: 1, mention: 2, background: 0 };

/** The page's grade for `query`. */
export function gradeOf(query: JudgedQuery, page: CorpusPage): number {
  if (page.topic === undefined || page.role === 'background') return 0;
  const grade = query.topics[page.topic] ?? 0;
  return Math.max(0, grade - ROLE_PENALTY[page.role]);
}

/** Checks the parsed file: every query has text, a class and grades 1–3 of known topics. Throws naming the first problem. */
export function checkQueries(parsed: unknown): JudgedQuery[] {
  const queries = (parsed as { queries?: unknown }).queries;
  if (!Array.isArray(queries)) throw new Error('queries.json: "queries" must be a list');
  const known = new Set(TOPICS.map((t) => t.id));
  for (const [i, query] of (queries as Partial<JudgedQuery>[]).entries()) {
    const where = `queries.json: query ${i + 1} (${JSON.stringify(query.q)})`;
    if (typeof query.q !== 'string' || query.q.trim() === '') throw new Error(`${where}: "q" must be a non-blank string`);
    if (typeof query.class !== 'string') throw new Error(`${where}: "class" must be a string`);
    if (query.must !== undefined && query.must !== true) throw new Error(`${where}: "must" is true or absent`);
    const topics = Object.entries(query.topics ?? {});
    if (topics.length === 0) throw new Error(`${where}: "topics" must judge at least one topic`);
    for (const [topic, grade] of topics) {
      if (!known.has(topic)) throw new Error(`${where}: no topic "${topic}" in topics.ts`);
      if (!Number.isInteger(grade) || grade < 1 || grade > 3) throw new Error(`${where}: grade of "${topic}" must be 1, 2 or 3`);
    }
  }
  return queries as JudgedQuery[];
}

export function readQueries(): JudgedQuery[] {
  return checkQueries(JSON.parse(readFileSync(QUERIES_FILE, 'utf8')));
}

// The relevance corpus and its judgments (bench/relevance): the same seed gives the same pages, the size asked for,
// each topic with its main, aspect and mention pages; the judgments file is read and checked, pages graded by role.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PAGES, DEFAULT_SEED, generateCorpus, type CorpusPage } from '../../../bench/relevance/corpus.js';
import { checkQueries, gradeOf, readQueries, type JudgedQuery } from '../../../bench/relevance/judgments.js';
import { PREFIXES_WANTED, suggestionPrefixes } from '../../../bench/relevance/prefixes.js';
import { dativePlural, noun, TOPICS } from '../../../bench/relevance/topics.js';
import { wikiPageLocation } from '../../../src/wiki/layout.js';

describe('relevance corpus', () => {
  const corpus = generateCorpus();

  it('is the same for the same seed and size, and another for another seed', () => {
    assert.deepEqual(generateCorpus(DEFAULT_SEED, DEFAULT_PAGES), corpus);
    assert.notDeepEqual(generateCorpus(DEFAULT_SEED + 1, DEFAULT_PAGES), corpus);
  });

  it('has the pages asked for, at least 2,000 by default, each a wiki page of its own path', () => {
    assert.equal(DEFAULT_PAGES >= 2000, true);
    assert.equal(corpus.length, DEFAULT_PAGES);
    assert.equal(generateCorpus(DEFAULT_SEED, 2500).length, 2500);
    assert.equal(new Set(corpus.map((page) => page.path)).size, corpus.length);
    for (const page of corpus) assert.notEqual(wikiPageLocation(page.path), null, page.path);
  });

  it('gives every topic one main page, two aspect pages and two pages naming it; the rest are background', () => {
    const count = (topic: string, role: CorpusPage['role']) => corpus.filter((page) => page.topic === topic && page.role === role).length;
    for (const topic of TOPICS) {
      assert.deepEqual([count(topic.id, 'main'), count(topic.id, 'aspect'), count(topic.id, 'mention')], [1, 2, 2], topic.id);
      assert.ok(corpus.find((page) => page.topic === topic.id && page.role === 'main')!.markdown.startsWith(`# ${topic.title.sg}\n`));
    }
    assert.equal(corpus.filter((page) => page.role === 'background').length, DEFAULT_PAGES - TOPICS.length * 5);
  });

  it('refuses a size too small for the topics\' own pages', () => {
    assert.throws(() => generateCorpus(DEFAULT_SEED, 10), /at least 350 pages/);
  });

  it('writes nouns in their forms: dative plural, genitive', () => {
    assert.equal(dativePlural(noun('Bruch', 'm', 'Brüche')), 'Brüchen');
    assert.equal(dativePlural(noun('Regel', 'f', 'Regeln')), 'Regeln');
    assert.equal(noun('Fluss', 'm', 'Flüsse').gen, 'Flusses');
    assert.equal(noun('Bruch', 'm', 'Brüche').gen, 'Bruchs');
    assert.equal(noun('Licht', 'n').countable, false);
  });
});

describe('relevance judgments', () => {
  const page = (role: CorpusPage['role'], topic?: string): CorpusPage => ({ path: 'A/.wiki/a.md', markdown: '# A', role, ...(topic ? { topic } : {}) });
  const query: JudgedQuery = { q: 'Brüche', class: 'inflection', topics: { bruchrechnung: 3, prozentrechnung: 1 } };

  it('grades a page by its topic\'s grade less its role: main 0, aspect 1, mention 2', () => {
    assert.deepEqual(['main', 'aspect', 'mention'].map((role) => gradeOf(query, page(role as CorpusPage['role'], 'bruchrechnung'))), [3, 2, 1]);
    assert.deepEqual(['main', 'aspect', 'mention'].map((role) => gradeOf(query, page(role as CorpusPage['role'], 'prozentrechnung'))), [1, 0, 0]);
    assert.equal(gradeOf(query, page('main', 'schulweg')), 0);
    assert.equal(gradeOf(query, page('background')), 0);
  });

  it('reads at least 200 queries of every kind the issue names, with a must set', () => {
    const queries = readQueries();
    assert.ok(queries.length >= 200, `${queries.length} queries`);
    const classes = new Set(queries.map((q) => q.class));
    for (const c of ['as-written', 'inflection', 'umlaut-ascii', 'sharp-s', 'compound-split', 'typo']) assert.ok(classes.has(c), c);
    assert.ok(queries.filter((q) => q.must).length >= 100);
  });

  it('names the first problem of a bad file', () => {
    assert.throws(() => checkQueries({}), /"queries" must be a list/);
    assert.throws(() => checkQueries({ queries: [{ q: 'x', class: 'typo', topics: { nirgends: 3 } }] }), /no topic "nirgends"/);
    assert.throws(() => checkQueries({ queries: [{ q: 'x', class: 'typo', topics: { schulweg: 4 } }] }), /must be 1, 2 or 3/);
    assert.throws(() => checkQueries({ queries: [{ q: ' ', class: 'typo', topics: { schulweg: 3 } }] }), /non-blank/);
  });

  it('types 100 suggestion prefixes, each the start of its topic\'s title in some spelling', () => {
    const prefixes = suggestionPrefixes();
    assert.equal(prefixes.length, PREFIXES_WANTED);
    assert.equal(new Set(prefixes.map((p) => p.q)).size, PREFIXES_WANTED);
  });
});

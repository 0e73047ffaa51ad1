/**
 * What a user types into the suggestion box, from the topics' titles (topics.ts): per topic the shortest start of
 * its title (at least 4 letters) that starts no other title, then, until there are 100, the same start with umlauts
 * and ß written ae, oe, ue and ss, then in lower case and one letter longer.
 */
import { TOPICS } from './topics.js';

export interface SuggestionPrefix {
  q: string;
  /** The topic whose pages the prefix is meant to find. */
  topic: string;
}

export const PREFIXES_WANTED = 100;
const MIN_PREFIX = 4;

const ascii = (text: string): string => text.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/Ä/g, 'Ae').replace(/Ö/g, 'Oe').replace(/Ü/g, 'Ue').replace(/ß/g, 'ss');

/** The shortest start of `title` (at least MIN_PREFIX letters) that no other title starts with, ignoring case. */
function uniqueStart(title: string, others: readonly string[]): string {
  for (let length = MIN_PREFIX; length < title.length; length++) {
    const start = title.slice(0, length).toLowerCase();
    if (!others.some((other) => other.toLowerCase().startsWith(start))) return title.slice(0, length);
  }
  return title;
}

export function suggestionPrefixes(wanted = PREFIXES_WANTED): SuggestionPrefix[] {
  const titles = TOPICS.map((t) => t.title.sg);
  const starts = TOPICS.map((t, i) => ({ topic: t.id, title: t.title.sg, start: uniqueStart(t.title.sg, titles.filter((_, j) => j !== i)) }));
  const typed = starts.map(({ topic, start }) => ({ q: start, topic }));
  const spelt = starts.filter(({ start }) => ascii(start) !== start).map(({ topic, start }) => ({ q: ascii(start), topic }));
  const lower = starts.map(({ topic, title, start }) => ({ q: title.slice(0, start.length + 1).toLowerCase(), topic }));
  return [...typed, ...spelt, ...lower].slice(0, wanted);
}

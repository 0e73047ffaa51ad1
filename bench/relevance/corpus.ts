/**
 * The relevance corpus: school wiki pages generated from the topics (topics.ts) with a seeded random source, so the
 * same seed and size give the same pages byte for byte. Each topic has a main page and two pages on an aspect of it
 * (a FAQ, material, dates), and is named in passing on two other pages; every other page is a week plan, minutes, a
 * letter to parents or an AG notice, written from everyday sentences and from other topics' distractors (sentences
 * that share a topic's words but not its subject). Which page is about which topic, and how (its role), is recorded
 * with the page: the judgments (judgments.ts) grade pages by that record, never by what an analyzer makes of them.
 */
import { seededRandom } from '../../test/integration/search/seeded-random.js';
import { dativePlural, TOPICS, type Gender, type Noun, type Topic } from './topics.js';

/** How a page relates to its topic: about it, about one aspect of it, naming it once; or about none (background). */
export type PageRole = 'main' | 'aspect' | 'mention' | 'background';

export interface CorpusPage {
  /** Share-relative wiki page path (`<folder>/.wiki/<page>.md`). */
  path: string;
  markdown: string;
  /** The topic the page is about or names; absent for background pages. */
  topic?: string;
  role: PageRole;
}

export const DEFAULT_SEED = 44;
export const DEFAULT_PAGES = 2000;
const ASPECTS_PER_TOPIC = 2;
const MENTIONS_PER_TOPIC = 2;

type Case = 'nom' | 'acc' | 'dat' | 'gen';
const DEFINITE: Record<Case, Record<Gender | 'pl', string>> = {
  nom: { m: 'der', f: 'die', n: 'das', pl: 'die' },
  acc: { m: 'den', f: 'die', n: 'das', pl: 'die' },
  dat: { m: 'dem', f: 'der', n: 'dem', pl: 'den' },
  gen: { m: 'des', f: 'der', n: 'des', pl: 'der' },
};
const INDEFINITE_ACC: Record<Gender, string> = { m: 'einen', f: 'eine', n: 'ein' };

/** The noun with its definite article in `c`, singular: "des Bruchs", "der Bruchrechnung". */
function the(noun: Noun, c: Case): string {
  const form = c === 'gen' ? noun.gen : noun.sg;
  return `${DEFINITE[c][noun.g]} ${form}`;
}

/** The plural with its article in `c`: "die Brüche", "den Brüchen". */
function thePlural(noun: Noun, c: Case): string {
  const form = c === 'dat' ? dativePlural(noun) : noun.pl;
  return `${DEFINITE[c].pl} ${form}`;
}

/** "zu" with the dative article, contracted as German writes it: zum Bruch, zur Bruchrechnung. */
const zu = (noun: Noun): string => `${noun.g === 'f' ? 'zur' : 'zum'} ${noun.sg}`;
const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/** `n` different elements of `list` in random order. */
function pickSome<T>(random: Random, list: readonly T[], n: number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

const TEACHERS = ['Frau Schneider', 'Herr Yılmaz', 'Frau Becker', 'Herr Nowak', 'Frau Hoffmann', 'Herr Petersen', 'Frau Krüger', 'Herr Schulz'];
/** A teacher as an accusative object ("an Herrn Nowak"). */
const teacherAcc = (r: Random): string => pick(r, TEACHERS).replace(/^Herr /, 'Herrn ');
const DAYS = ['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag'];
const MONTHS = ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'September', 'Oktober', 'November', 'Dezember'];
const CLASSES = ['5a', '5b', '6a', '6c', '7a', '7b', '8a', '8c', '9a', '9b', '10a', '10b'];

/** Sentences about the topic itself. */
const INTRO: ((t: Topic, r: Random) => string)[] = [
  (t) => `Auf dieser Seite geht es um ${t.about}.`,
  (t, r) => {
    const grade = 5 + Math.floor(r() * 5);
    return `${capital(the(t.title, 'nom'))} steht in ${t.subject} für die Klassen ${grade} und ${grade + 1} auf dem Plan.`;
  },
  (t) => `Hier sammeln wir alles Wichtige zum Thema ${t.title.sg}.`,
  (t, r) => `Fragen ${zu(t.title)} beantwortet ${pick(r, TEACHERS)}.`,
];

type WordSentence = (t: Topic, w: Noun, r: Random) => string;
/** Sentences about one of the topic's words in the singular, in its cases. */
const ABOUT_WORD: WordSentence[] = [
  (t, w) => `${capital(the(w, 'nom'))} gehört ${zu(t.title)} wie kaum etwas anderes.`,
  (_t, w, r) => `Die Bedeutung ${the(w, 'gen')} erklärt ${pick(r, TEACHERS)} im Unterricht.`,
  (_t, w) => `${capital(the(w, 'nom'))} kommt im Heft auf der ersten Seite vor.`,
  (_t, w) => `Im Test fragen wir nach ${the(w, 'dat')}.`,
];
/** Sentences about one of the topic's words in the plural, for nouns that have one. */
const ABOUT_WORDS: WordSentence[] = [
  (t, w) => `${capital(thePlural(w, 'nom'))} sind ein wichtiger Teil ${the(t.title, 'gen')}.`,
  (_t, w) => `Wir üben mit ${thePlural(w, 'dat')} an Beispielen aus dem Alltag.`,
  (_t, w) => `Im Heft steht eine Liste aller ${w.pl}.`,
  (_t, w) => `Jede Gruppe bekommt ${INDEFINITE_ACC[w.g]} ${w.sg} zum Beschreiben.`,
];
/** A sentence about `w`, in the singular or, when it has one, the plural. */
const sayAbout: WordSentence = (t, w, r) => pick(r, w.countable ? [...ABOUT_WORD, ...ABOUT_WORDS] : ABOUT_WORD)(t, w, r);

const ASPECTS: { name: string; slug: string; line: (t: Topic) => string }[] = [
  { name: 'Fragen und Antworten', slug: 'fragen', line: (t) => `Die häufigsten Fragen ${zu(t.title)} und unsere Antworten.` },
  { name: 'Material', slug: 'material', line: (t) => `Arbeitsblätter und Links ${zu(t.title)} zum Herunterladen.` },
  { name: 'Termine', slug: 'termine', line: (t) => `Alle Termine rund um ${the(t.title, 'acc')} in diesem Schuljahr.` },
  { name: 'Tipps für zu Hause', slug: 'tipps', line: (t) => `Wie Eltern beim Thema ${t.title.sg} helfen können.` },
];

/** How a page names a topic in passing. */
const MENTION: ((t: Topic, r: Random) => string)[] = [
  (t) => `Nächste Woche beginnen wir in ${t.subject} mit ${the(t.title, 'dat')}.`,
  (t) => `Wichtig: Infos ${zu(t.title)} stehen im Wiki.`,
  (t, r) => `Am ${pick(r, DAYS)} geht es kurz um ${the(t.title, 'acc')}.`,
  (t) => `Bitte lest vorher die Seite über ${the(t.title, 'acc')}.`,
];

/** Everyday sentences of week plans, minutes and letters, free of every topic's words. */
const EVERYDAY: ((r: Random) => string)[] = [
  (r) => `Am ${pick(r, DAYS)} fällt die sechste Stunde aus.`,
  (r) => `Bitte bis ${pick(r, DAYS)} unterschreiben und zurückgeben.`,
  (r) => `${pick(r, TEACHERS)} ist diese Woche auf Fortbildung.`,
  () => 'Vielen Dank an alle, die mitgeholfen haben.',
  (r) => `Die Sitzung beginnt um ${13 + Math.floor(r() * 5)} Uhr.`,
  () => 'Anwesend waren alle Mitglieder des Gremiums außer zwei.',
  () => 'Denkt an eure Turnbeutel und an wetterfeste Kleidung.',
  (r) => `Der Kuchenverkauf bringt ${20 + Math.floor(r() * 200)} Euro für die Klassenkasse.`,
  () => 'Die nächste Sitzung ist in vier Wochen.',
  (r) => `Rückfragen bitte an ${teacherAcc(r)}.`,
  () => 'Wir wünschen allen ein schönes Wochenende.',
  () => 'Das Schulfoto kann bis Ende des Monats bestellt werden.',
  (r) => `Die Klasse ${pick(r, CLASSES)} übernimmt diese Woche den Ordnungsdienst.`,
  () => 'Beschluss: einstimmig angenommen.',
  () => 'Neue Gesichter im Kollegium stellen sich auf der Homepage vor.',
  () => 'Wer etwas beitragen möchte, meldet sich bei der Klassenleitung.',
  (r) => `Der Wandertag ist am ${1 + Math.floor(r() * 28)}. ${pick(r, MONTHS)}.`,
  () => 'Bitte gebt Bescheid, wenn ihr Allergien habt.',
];

const BACKGROUND_KINDS: { folder: (r: Random) => string; page: (n: number) => string; title: (n: number, r: Random) => string }[] = [
  { folder: (r) => `Klassen/${pick(r, CLASSES)}`, page: (n) => `wochenplan-${n}`, title: (n) => `Wochenplan, Woche ${n}` },
  { folder: () => 'Konferenzen', page: (n) => `sitzung-${n}`, title: (_n, r) => `Sitzung vom ${1 + Math.floor(r() * 28)}. ${pick(r, MONTHS)}` },
  { folder: () => 'Elternbriefe', page: (n) => `brief-${n}`, title: (n) => `Elternbrief Nr. ${n}` },
  { folder: () => 'Aktuelles', page: (n) => `meldung-${n}`, title: (n) => `Kurz gemeldet ${n}` },
];

function mainPage(t: Topic, r: Random): CorpusPage {
  const [w0, w1, w2, w3] = t.words as [Noun, Noun, Noun, Noun];
  const intro = pickSome(r, INTRO, 3).map((s) => s(t, r));
  const say = (w: Noun) => sayAbout(t, w, r);
  const markdown = [
    `# ${t.title.sg}`, '', intro.join(' '), '',
    `## ${w0.pl}`, '', `${say(w0)} ${say(w1)} ${say(w0)}`, '',
    `## ${w2.sg} und ${w3.sg}`, '', `${say(w2)} ${say(w3)} ${say(w1)}`,
  ].join('\n');
  return { path: `${t.folder}/.wiki/${t.id}.md`, markdown, topic: t.id, role: 'main' };
}

function aspectPages(t: Topic, r: Random): CorpusPage[] {
  return pickSome(r, ASPECTS, ASPECTS_PER_TOPIC).map((aspect) => {
    const w = pick(r, t.words);
    const markdown = [`# ${t.title.sg}: ${aspect.name}`, '', `${aspect.line(t)} ${sayAbout(t, w, r)} ${pick(r, EVERYDAY)(r)}`].join('\n');
    return { path: `${t.folder}/.wiki/${t.id}-${aspect.slug}.md`, markdown, topic: t.id, role: 'aspect' as const };
  });
}

/** A background page, naming `mentioned` in passing when given; `n` numbers it within the corpus. */
function backgroundPage(n: number, r: Random, mentioned: Topic | undefined): CorpusPage {
  const kind = pick(r, BACKGROUND_KINDS);
  const folder = kind.folder(r);
  const sentences = pickSome(r, EVERYDAY, 2 + Math.floor(r() * 3)).map((s) => s(r));
  const others = TOPICS.filter((t) => t !== mentioned);
  for (let i = 0, distractors = 1 + Math.floor(r() * 2); i < distractors; i++) {
    sentences.splice(Math.floor(r() * (sentences.length + 1)), 0, pick(r, pick(r, others).distractors));
  }
  if (mentioned !== undefined) sentences.splice(Math.floor(r() * (sentences.length + 1)), 0, pick(r, MENTION)(mentioned, r));
  const markdown = [`# ${kind.title(n, r)}`, '', sentences.join(' ')].join('\n');
  const page: CorpusPage = { path: `${folder}/.wiki/${kind.page(n)}.md`, markdown, role: mentioned === undefined ? 'background' : 'mention' };
  return mentioned === undefined ? page : { ...page, topic: mentioned.id };
}

/**
 * `pages` pages (at least the topics' own, 3 per topic, and their mentions) from `seed`: each topic's main and aspect
 * pages, then background pages, `MENTIONS_PER_TOPIC` of them per topic naming it, spread at random.
 */
export function generateCorpus(seed = DEFAULT_SEED, pages = DEFAULT_PAGES): CorpusPage[] {
  const minimum = TOPICS.length * (1 + ASPECTS_PER_TOPIC + MENTIONS_PER_TOPIC);
  if (pages < minimum) throw new Error(`a corpus needs at least ${minimum} pages, not ${pages}`);
  const r = seededRandom(seed);
  const corpus = TOPICS.flatMap((t) => [mainPage(t, r), ...aspectPages(t, r)]);
  const backgrounds = pages - corpus.length;
  const mentions: (Topic | undefined)[] = Array.from({ length: backgrounds }, () => undefined);
  const slots = pickSome(r, [...mentions.keys()], TOPICS.length * MENTIONS_PER_TOPIC);
  slots.forEach((slot, i) => { mentions[slot] = TOPICS[i % TOPICS.length]; });
  for (const [n, mentioned] of mentions.entries()) corpus.push(backgroundPage(n + 1, r, mentioned));
  return corpus;
}

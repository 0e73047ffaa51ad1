/**
 * The relevance suite's pages and judged queries: what German-speaking pupils and teachers type, and which pages
 * answer it. Each query names its relevant pages by file (`relevant`, best first); a query marked `must` must have
 * its first relevant page in the top 3. Read by the relevance test (relevance.test.ts) and bench/search/relevance.
 */

/** Which difficulty a query stands for. */
export type QueryKind = 'inflection' | 'umlaut' | 'sharp-s' | 'typo' | 'compound' | 'title-body' | 'words';

export interface JudgedQuery {
  q: string;
  kind: QueryKind;
  /** Page files (keys of RELEVANCE_PAGES), best first. */
  relevant: string[];
  must?: true;
}

/** Share-relative wiki page path -> Markdown. */
export const RELEVANCE_PAGES: Record<string, string> = {
  'Organisation/.wiki/hausordnung.md': '# Hausordnung\n\nIn unserem Haus gelten Regeln für alle. Das Schulgebäude ist ab 7:30 Uhr geöffnet. Im Treppenhaus wird nicht gerannt.',
  'Organisation/.wiki/klassenfahrten.md': '# Klassenfahrt nach Berlin\n\nDie Klassenfahrt der 9. Klassen führt im Mai nach Berlin. Die Eltern zahlen einen Zuschuss, der Förderverein den Rest.',
  'Mathe/.wiki/bruchrechnung.md': '# Bruchrechnung\n\nBrüche addieren: erst den Hauptnenner suchen. Ein Bruch besteht aus Zähler und Nenner.\n\n## Kürzen und Erweitern\n\nBeim Kürzen teilt man Zähler und Nenner durch dieselbe Zahl.',
  'Mathe/.wiki/geometrie.md': '# Geometrie\n\nDreiecke, Vierecke und Kreise. Die Fläche eines Kreises ist pi mal r Quadrat. Winkel messen wir mit dem Geodreieck.',
  'Mathe/.wiki/pruefungen.md': '# Prüfungstermine Mathematik\n\nDie Prüfung im Fach Mathematik findet am 12. Juni statt. Alle Prüflinge bringen einen Taschenrechner mit.',
  'Sport/.wiki/fussball.md': '# Fußball-AG\n\nDie Fußball-AG trainiert dienstags auf dem Sportplatz. Neue Spieler sind willkommen. Im Frühjahr spielen wir ein Turnier gegen die Nachbarschule.',
  'Sport/.wiki/schwimmen.md': '# Schwimmunterricht\n\nDer Schwimmunterricht findet im Hallenbad an der Goethestraße statt. Eine Badekappe ist Pflicht.',
  'Schuelerzeitung/.wiki/redaktion.md': '# Redaktion der Schülerzeitung\n\nDie Schüler der Redaktion treffen sich jeden Donnerstag. Artikel bitte bis Monatsende abgeben.',
  'Verwaltung/.wiki/zeugnisse.md': '# Zeugnisse\n\nDie Zeugnisausgabe ist am letzten Schultag. Die Noten werden in der Konferenz beschlossen.',
  'Verwaltung/.wiki/krankmeldung.md': '# Krankmeldung\n\nIst ein Kind krank, melden die Eltern es bis 8 Uhr im Sekretariat. Ab drei Fehltagen braucht es ein ärztliches Attest.',
  'Bio/.wiki/baeume.md': '# Bäume im Schulgarten\n\nIm Schulgarten stehen drei Apfelbäume und eine Linde. Der Baum am Eingang ist über hundert Jahre alt.',
  'Bio/.wiki/tiere.md': '# Tiere im Klassenzimmer\n\nDie Klasse 5b pflegt zwei Meerschweinchen. In den Ferien kümmern sich Familien um die Tiere.',
  'Musik/.wiki/chor.md': '# Schulchor\n\nDer Chor probt montags in der Aula. Für das Sommerkonzert üben wir Lieder von Mozart.',
  'Organisation/.wiki/mensa.md': '# Mensa und Mittagessen\n\nDas Mittagessen kostet 3,50 Euro. Der Speiseplan hängt in der Mensa aus. Getränke gibt es am Automaten.',
  'Organisation/.wiki/vertretungsplan.md': '# Vertretungsplan\n\nDer Vertretungsplan wird täglich um 7 Uhr aktualisiert. Ausfallende Stunden sind rot markiert.',
  'Organisation/.wiki/elternabend.md': '# Elternabend\n\nDer Elternabend der Klasse 7 ist am 3. Oktober. Themen: die Klassenfahrt, Regeln für Handys, die Wahl der Elternvertreter.',
  'Deutsch/.wiki/lektuere.md': '# Lektüre der 8. Klassen\n\nWir lesen „Die Welle“ und Goethes „Faust“ in Auszügen. Die Bücher leiht die Bibliothek aus.',
  'Deutsch/.wiki/grammatik.md': '# Grammatik: die Fälle\n\nNominativ, Genitiv, Dativ und Akkusativ. Dazu Übungen zur Groß- und Kleinschreibung.',
  'Organisation/.wiki/bibliothek.md': '# Bibliothek\n\nDie Schulbibliothek hat 4000 Bücher. Die Ausleihe gilt zwei Wochen, verlängern geht online.',
  'IT/.wiki/wlan.md': '# WLAN und Passwörter\n\nDas Schul-WLAN heißt EDU. Das Passwort gibt es beim Klassenlehrer. Passwörter nie weitergeben.',
  'IT/.wiki/drucker.md': '# Drucker im Lehrerzimmer\n\nDer Drucker im Lehrerzimmer druckt auch farbig. Bei Papierstau bitte den Hausmeister rufen.',
  'Organisation/.wiki/hausmeister.md': '# Hausmeister\n\nUnser Hausmeister Herr Groß ist von 7 bis 16 Uhr im Haus. Schlüssel für die Räume gibt es bei ihm.',
  'Sport/.wiki/sportfest.md': '# Sportfest\n\nDas Sportfest mit Läufen, Sprüngen und Würfen findet im Juli statt. Urkunden gibt es für alle Teilnehmer.',
  'Organisation/.wiki/ferien.md': '# Ferientermine\n\nAlle Ferien im Überblick: Sommerferien vom 24. Juli bis 3. September, Herbstferien zwei Wochen im Oktober.',
  'Kunst/.wiki/ausstellung.md': '# Ausstellung im Foyer\n\nDie Kunstkurse zeigen Gemälde und Skulpturen. Die Vernissage beginnt um 18 Uhr mit Grüßen der Schulleitung.',
  'Organisation/.wiki/schulweg.md': '# Schulweg\n\nDer sichere Schulweg führt über die Ampel an der Hauptstraße. Die Straße vor der Schule ist eine Spielstraße. Fahrräder stehen im Fahrradkeller.',
  'Chemie/.wiki/sicherheit.md': '# Sicherheit im Chemieraum\n\nSchutzbrille tragen! Säuren nie mit Wasser verdünnen, immer umgekehrt. Versuche nur mit einer Lehrkraft.',
  'Organisation/.wiki/fundsachen.md': '# Fundsachen\n\nVerlorene Jacken, Mützen und Schlüssel liegen beim Hausmeister. Nach den Ferien wird alles gespendet.',
  'Mathe/.wiki/taschenrechner.md': '# Taschenrechner\n\nAb Klasse 7 brauchen alle einen wissenschaftlichen Taschenrechner. Empfohlen: ein Modell mit Bruchtaste.',
  'Geschichte/.wiki/mittelalter.md': '# Das Mittelalter\n\nBurgen, Ritter und Klöster. Die Klasse besucht eine Burg an der Mosel. Mönche schrieben Bücher von Hand.',
};

const p = {
  hausordnung: 'Organisation/.wiki/hausordnung.md',
  klassenfahrten: 'Organisation/.wiki/klassenfahrten.md',
  bruchrechnung: 'Mathe/.wiki/bruchrechnung.md',
  geometrie: 'Mathe/.wiki/geometrie.md',
  pruefungen: 'Mathe/.wiki/pruefungen.md',
  fussball: 'Sport/.wiki/fussball.md',
  schwimmen: 'Sport/.wiki/schwimmen.md',
  redaktion: 'Schuelerzeitung/.wiki/redaktion.md',
  zeugnisse: 'Verwaltung/.wiki/zeugnisse.md',
  krankmeldung: 'Verwaltung/.wiki/krankmeldung.md',
  baeume: 'Bio/.wiki/baeume.md',
  tiere: 'Bio/.wiki/tiere.md',
  chor: 'Musik/.wiki/chor.md',
  mensa: 'Organisation/.wiki/mensa.md',
  vertretungsplan: 'Organisation/.wiki/vertretungsplan.md',
  elternabend: 'Organisation/.wiki/elternabend.md',
  lektuere: 'Deutsch/.wiki/lektuere.md',
  grammatik: 'Deutsch/.wiki/grammatik.md',
  bibliothek: 'Organisation/.wiki/bibliothek.md',
  wlan: 'IT/.wiki/wlan.md',
  drucker: 'IT/.wiki/drucker.md',
  hausmeister: 'Organisation/.wiki/hausmeister.md',
  sportfest: 'Sport/.wiki/sportfest.md',
  ferien: 'Organisation/.wiki/ferien.md',
  ausstellung: 'Kunst/.wiki/ausstellung.md',
  schulweg: 'Organisation/.wiki/schulweg.md',
  sicherheit: 'Chemie/.wiki/sicherheit.md',
  fundsachen: 'Organisation/.wiki/fundsachen.md',
  taschenrechner: 'Mathe/.wiki/taschenrechner.md',
  mittelalter: 'Geschichte/.wiki/mittelalter.md',
} as const;

const q = (kind: QueryKind, text: string, relevant: string[], must = true): JudgedQuery =>
  ({ q: text, kind, relevant, ...(must ? { must: true as const } : {}) });

/**
 * Queries that are no typo but that `german` answers only with the typo rule: its light stemmer makes `zeugniss`
 * of Zeugnisse but `zeugnis` of Zeugnis, and `schlusseln` of Schlüsseln but `schlussel` of Schlüssel.
 */
export const FOUND_BY_TYPO_RULE = new Set(['Zeugnis', 'Schlüsseln']);

export const RELEVANCE_QUERIES: JudgedQuery[] = [
  // Plurals and other inflected forms of a word the page has in another form.
  q('inflection', 'Häuser', [p.hausordnung, p.hausmeister], false),
  q('inflection', 'Klassenfahrten', [p.klassenfahrten, p.elternabend]),
  q('inflection', 'Prüfung', [p.pruefungen]),
  q('inflection', 'Bruch', [p.bruchrechnung]),
  q('inflection', 'Baum', [p.baeume]),
  q('inflection', 'Bäumen', [p.baeume]),
  q('inflection', 'Tier', [p.tiere]),
  q('inflection', 'Lied', [p.chor]),
  q('inflection', 'Zeugnis', [p.zeugnisse]),
  q('inflection', 'Schlüsseln', [p.hausmeister, p.fundsachen]),
  q('inflection', 'Passwort', [p.wlan]),
  q('inflection', 'Lauf', [p.sportfest]),
  q('inflection', 'Sprung', [p.sportfest]),
  q('inflection', 'Burg', [p.mittelalter]),
  q('inflection', 'Kloster', [p.mittelalter]),
  q('inflection', 'Buch', [p.bibliothek, p.lektuere, p.mittelalter]),
  q('inflection', 'Jacke', [p.fundsachen]),
  q('inflection', 'Mütze', [p.fundsachen]),
  q('inflection', 'Fahrrad', [p.schulweg]),
  q('inflection', 'Säure', [p.sicherheit]),
  q('inflection', 'Skulptur', [p.ausstellung]),
  q('inflection', 'Elternabende', [p.elternabend]),
  q('inflection', 'Stunde', [p.vertretungsplan]),
  q('inflection', 'Getränk', [p.mensa]),
  q('inflection', 'Dreieck', [p.geometrie]),
  // Umlauts written as ae, oe, ue (a keyboard without them, a habit).
  q('umlaut', 'Schueler', [p.redaktion]),
  q('umlaut', 'Pruefung', [p.pruefungen]),
  q('umlaut', 'Baeume', [p.baeume]),
  q('umlaut', 'Buecher', [p.bibliothek, p.lektuere, p.mittelalter]),
  q('umlaut', 'Schluessel', [p.hausmeister, p.fundsachen]),
  q('umlaut', 'Muetzen', [p.fundsachen]),
  q('umlaut', 'Faelle', [p.grammatik]),
  q('umlaut', 'Uebungen', [p.grammatik]),
  q('umlaut', 'Kloester', [p.mittelalter]),
  q('umlaut', 'Zaehler', [p.bruchrechnung]),
  q('umlaut', 'aerztliches Attest', [p.krankmeldung]),
  q('umlaut', 'Passwoerter', [p.wlan]),
  q('umlaut', 'Moenche', [p.mittelalter]),
  q('umlaut', 'Gemaelde', [p.ausstellung]),
  // ß written as ss.
  q('sharp-s', 'Strasse', [p.schulweg]),
  q('sharp-s', 'Fussball', [p.fussball]),
  q('sharp-s', 'gross', [p.grammatik, p.hausmeister], false),
  q('sharp-s', 'heisst', [p.wlan]),
  q('sharp-s', 'Gruss', [p.ausstellung]),
  q('sharp-s', 'Strassen', [p.schulweg]),
  // Typos of one or two letters (the second try's rule).
  q('typo', 'Bruchrechung', [p.bruchrechnung]),
  q('typo', 'Klasenfahrt', [p.klassenfahrten, p.elternabend]),
  q('typo', 'Vertretungsplna', [p.vertretungsplan]),
  q('typo', 'Hausmeisster', [p.hausmeister, p.drucker, p.fundsachen]),
  q('typo', 'Bibliotek', [p.bibliothek, p.lektuere]),
  q('typo', 'Geometire', [p.geometrie]),
  q('typo', 'Mitagessen', [p.mensa]),
  q('typo', 'Krankmeldnug', [p.krankmeldung]),
  q('typo', 'Schwimunterricht', [p.schwimmen]),
  q('typo', 'Taschenrechnr', [p.taschenrechner, p.pruefungen]),
  // Words inside compounds the analyzer reaches: parts joined by a hyphen.
  q('compound', 'AG', [p.fussball]),
  q('compound', 'WLAN', [p.wlan]),
  q('compound', 'Kleinschreibung', [p.grammatik]),
  // Parts of closed compounds, which neither analyzer splits (no decompounder): judged, but not marked must.
  q('compound', 'Rechnung', [p.bruchrechnung], false),
  q('compound', 'Konzert', [p.chor], false),
  q('compound', 'Garten', [p.baeume], false),
  // A page with the word in its title before pages with it in the text.
  q('title-body', 'Bibliothek', [p.bibliothek, p.lektuere]),
  q('title-body', 'Hausmeister', [p.hausmeister, p.drucker, p.fundsachen]),
  q('title-body', 'Klassenfahrt', [p.klassenfahrten, p.elternabend]),
  q('title-body', 'Taschenrechner', [p.taschenrechner, p.pruefungen]),
  q('title-body', 'Mensa', [p.mensa]),
  q('title-body', 'Elternabend', [p.elternabend]),
  q('title-body', 'Ferien', [p.ferien, p.tiere, p.fundsachen]),
  // Several words, in any of the fields.
  q('words', 'Klassenfahrt Berlin', [p.klassenfahrten]),
  q('words', 'Hallenbad Badekappe', [p.schwimmen]),
  q('words', 'Schutzbrille Säuren', [p.sicherheit]),
  q('words', 'Sekretariat', [p.krankmeldung]),
  q('words', 'Aula', [p.chor]),
  q('words', 'Hauptnenner', [p.bruchrechnung]),
];

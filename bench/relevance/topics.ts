/**
 * The topics of the relevance corpus (corpus.ts): what a school wiki has pages about, each with the German words
 * its pages are written from. Every noun carries its own forms (singular, plural, genitive), so that pages use the
 * case and plural forms real text has and queries can name another form than the page. `about` is what a page says
 * the topic is, in the words a teacher would use (compounds paraphrased: "das Rechnen mit Brüchen"); `distractors`
 * are sentences that share the topic's words but are about something else, which the generator scatters over pages
 * of other topics. The judgments (queries.json) name these topics by `id`.
 */

export type Gender = 'm' | 'f' | 'n';

export interface Noun {
  sg: string;
  /** Nominative plural; the singular for nouns without a plural. */
  pl: string;
  /** False for nouns without a plural (das Licht, die Nahrung): no sentence puts them in the plural. */
  countable: boolean;
  g: Gender;
  /** Genitive singular. */
  gen: string;
}

export interface Topic {
  id: string;
  /** The wiki folder the topic's pages live in. */
  folder: string;
  /** The subject's name as a sentence uses it ("in Mathematik"). */
  subject: string;
  /** The topic's name: the title of its main page. */
  title: Noun;
  /** What the topic is about, as a phrase after "es geht um". */
  about: string;
  /** Nouns the topic's pages are written from (at least three). */
  words: Noun[];
  /** Sentences with the topic's words that are not about the topic. */
  distractors: string[];
}

/** The genitive singular by the usual rule: feminine unchanged, masculine and neuter -es after a sibilant, -s else. */
function genitive(sg: string, g: Gender): string {
  if (g === 'f') return sg;
  return /(s|ß|x|z|sch)$/.test(sg) ? `${sg}es` : `${sg}s`;
}

/** A noun; without `pl` it has no plural; `gen` defaults to the usual rule. */
export function noun(sg: string, g: Gender, pl?: string, gen = genitive(sg, g)): Noun {
  return { sg, pl: pl ?? sg, countable: pl !== undefined, g, gen };
}

/** The dative plural: -n added unless the plural ends in -n or -s. */
export function dativePlural(n: Noun): string {
  return /[ns]$/.test(n.pl) ? n.pl : `${n.pl}n`;
}

const m = (sg: string, pl?: string, gen?: string) => noun(sg, 'm', pl, gen);
const f = (sg: string, pl?: string) => noun(sg, 'f', pl);
const nt = (sg: string, pl?: string, gen?: string) => noun(sg, 'n', pl, gen);

const topic = (id: string, folder: string, subject: string, title: Noun, about: string, words: Noun[], distractors: string[]): Topic =>
  ({ id, folder, subject, title, about, words, distractors });

const MATHE = ['Mathe', 'Mathematik'] as const;
const DEUTSCH = ['Deutsch', 'Deutsch'] as const;
const ENGLISCH = ['Englisch', 'Englisch'] as const;
const BIO = ['Bio', 'Biologie'] as const;
const CHEMIE = ['Chemie', 'Chemie'] as const;
const PHYSIK = ['Physik', 'Physik'] as const;
const GESCHICHTE = ['Geschichte', 'Geschichte'] as const;
const ERDKUNDE = ['Erdkunde', 'Erdkunde'] as const;
const MUSIK = ['Musik', 'Musik'] as const;
const KUNST = ['Kunst', 'Kunst'] as const;
const SPORT = ['Sport', 'Sport'] as const;
const INFO = ['Informatik', 'Informatik'] as const;
const ORGA = ['Organisation', 'der Schulorganisation'] as const;
const ETHIK = ['Ethik', 'Ethik'] as const;

export const TOPICS: Topic[] = [
  topic('bruchrechnung', ...MATHE, f('Bruchrechnung', 'Bruchrechnungen'), 'das Rechnen mit Brüchen',
    [m('Bruch', 'Brüche'), m('Nenner', 'Nenner'), m('Zähler', 'Zähler'), nt('Kürzen')],
    ['Beim Sturz auf dem Schulhof gab es einen Bruch am Handgelenk.', 'Die Rechnung für die Busfahrt liegt im Sekretariat.']),
  topic('prozentrechnung', ...MATHE, f('Prozentrechnung', 'Prozentrechnungen'), 'das Rechnen mit Prozenten und Zinsen',
    [nt('Prozent', 'Prozente'), m('Grundwert', 'Grundwerte'), m('Zins', 'Zinsen'), m('Rabatt', 'Rabatte')],
    ['Zehn Prozent der Eltern kamen nicht zur Versammlung.', 'Der Förderverein zahlt keine Zinsen auf das Konto.']),
  topic('flaecheninhalt', ...MATHE, m('Flächeninhalt', 'Flächeninhalte'), 'die Berechnung von Flächen',
    [f('Fläche', 'Flächen'), nt('Rechteck', 'Rechtecke'), nt('Quadrat', 'Quadrate'), m('Quadratmeter', 'Quadratmeter')],
    ['Die Fläche vor der Turnhalle wird neu gepflastert.', 'Im Kunstraum hängt ein Bild mit einem roten Quadrat.']),
  topic('gleichungssystem', ...MATHE, nt('Gleichungssystem', 'Gleichungssysteme'), 'mehrere Gleichungen mit mehreren Variablen',
    [f('Gleichung', 'Gleichungen'), f('Variable', 'Variablen'), f('Lösung', 'Lösungen'), nt('Einsetzungsverfahren', 'Einsetzungsverfahren')],
    ['Für das Parkproblem gibt es noch keine Lösung.', 'Das neue System für die Essensbestellung startet im März.']),
  topic('winkelmessung', ...MATHE, f('Winkelmessung', 'Winkelmessungen'), 'das Messen von Winkeln mit dem Geodreieck',
    [m('Winkel', 'Winkel'), nt('Geodreieck', 'Geodreiecke'), m('Scheitelpunkt', 'Scheitelpunkte'), m('Schenkel', 'Schenkel')],
    ['In einem Winkel des Schulhofs steht die Tischtennisplatte.', 'Die Messung der Luftqualität im Klassenraum ergab gute Werte.']),
  topic('wahrscheinlichkeit', ...MATHE, f('Wahrscheinlichkeit', 'Wahrscheinlichkeiten'), 'Zufallsversuche mit Würfeln und Münzen',
    [m('Würfel', 'Würfel'), m('Zufall', 'Zufälle'), f('Münze', 'Münzen'), nt('Baumdiagramm', 'Baumdiagramme')],
    ['Beim Spieleabend lagen Würfel und Karten auf jedem Tisch.', 'Es war reiner Zufall, dass beide Klassen am selben Tag fuhren.']),
  topic('taschenrechner', ...MATHE, m('Taschenrechner', 'Taschenrechner'), 'den wissenschaftlichen Rechner für den Unterricht',
    [f('Taste', 'Tasten'), nt('Modell', 'Modelle'), f('Batterie', 'Batterien'), f('Anzeige', 'Anzeigen')],
    ['Die Batterie der Funkuhr im Foyer ist leer.', 'In der Tasche lag noch das Pausenbrot von Montag.']),
  topic('gedichtanalyse', ...DEUTSCH, f('Gedichtanalyse', 'Gedichtanalysen'), 'das Deuten von Gedichten mit Strophen und Reimen',
    [nt('Gedicht', 'Gedichte'), f('Strophe', 'Strophen'), m('Reim', 'Reime'), nt('Metrum', 'Metren')],
    ['Zum Abschied las die Klasse dem Hausmeister ein Gedicht vor.', 'Die Analyse der Umfrage zur Mensa folgt im Juni.']),
  topic('rechtschreibung', ...DEUTSCH, f('Rechtschreibung'), 'die Regeln der Schreibung und das Nachschlagen im Wörterbuch',
    [f('Regel', 'Regeln'), nt('Wörterbuch', 'Wörterbücher'), m('Fehler', 'Fehler'), nt('Diktat', 'Diktate')],
    ['In der Regel beginnt der Unterricht um acht.', 'Der Fehler im Stundenplan ist behoben.']),
  topic('eroerterung', ...DEUTSCH, f('Erörterung', 'Erörterungen'), 'das Abwägen von Argumenten in einem Aufsatz',
    [nt('Argument', 'Argumente'), f('These', 'Thesen'), nt('Beispiel', 'Beispiele'), m('Aufsatz', 'Aufsätze')],
    ['Ein gutes Beispiel für Teamgeist war das Sportfest.', 'Das stärkste Argument für die neue Uhr war der Preis.']),
  topic('maerchen', ...DEUTSCH, nt('Märchen', 'Märchen'), 'Volksmärchen der Brüder Grimm',
    [f('Hexe', 'Hexen'), m('König', 'Könige'), m('Wald', 'Wälder'), f('Prinzessin', 'Prinzessinnen')],
    ['Der Wald hinter dem Sportplatz ist im Winter gesperrt.', 'Beim Fasching kamen viele als König oder Hexe.']),
  topic('lesetagebuch', ...DEUTSCH, nt('Lesetagebuch', 'Lesetagebücher'), 'das Begleitheft zur Klassenlektüre',
    [nt('Buch', 'Bücher'), nt('Kapitel', 'Kapitel'), f('Figur', 'Figuren'), f('Lektüre', 'Lektüren')],
    ['Das Tagebuch der Klassenfahrt liegt im Sekretariat aus.', 'Die Figur aus Ton im Foyer haben Fünftklässler gemacht.']),
  topic('zeichensetzung', ...DEUTSCH, f('Zeichensetzung'), 'Kommas, Punkte und andere Satzzeichen',
    [nt('Komma', 'Kommas'), m('Satz', 'Sätze'), m('Punkt', 'Punkte'), m('Nebensatz', 'Nebensätze')],
    ['Punkt zwölf Uhr beginnt die Mittagspause.', 'Der erste Satz Hefte für die fünften Klassen ist bestellt.']),
  topic('vokabeltest', ...ENGLISCH, m('Vokabeltest', 'Vokabeltests'), 'das Abfragen englischer Vokabeln',
    [f('Vokabel', 'Vokabeln'), nt('Wort', 'Wörter'), f('Karteikarte', 'Karteikarten'), f('Unit', 'Units')],
    ['Der Test des neuen Feueralarms verlief ohne Probleme.', 'Die Schulleiterin richtete ein Wort des Dankes an die Eltern.']),
  topic('schueleraustausch', ...ENGLISCH, m('Schüleraustausch', 'Schüleraustausche', 'Schüleraustauschs'), 'den Austausch mit der Partnerschule in England',
    [f('Gastfamilie', 'Gastfamilien'), f('Partnerschule', 'Partnerschulen'), f('Reise', 'Reisen'), m('Reisepass', 'Reisepässe')],
    ['Der Austausch der Fenster im Altbau beginnt im Sommer.', 'Die Reise des Chors nach Wien ist ausgebucht.']),
  topic('fotosynthese', ...BIO, f('Fotosynthese'), 'wie Pflanzen aus Licht Zucker machen',
    [f('Pflanze', 'Pflanzen'), nt('Blatt', 'Blätter'), nt('Licht'), nt('Chlorophyll')],
    ['Das Licht im Treppenhaus geht nach zehn Minuten aus.', 'Auf dem Blatt mit den Terminen fehlt der Elternabend.']),
  topic('zellteilung', ...BIO, f('Zellteilung', 'Zellteilungen'), 'Mitose und das Mikroskopieren von Zellen',
    [f('Zelle', 'Zellen'), m('Zellkern', 'Zellkerne'), nt('Mikroskop', 'Mikroskope'), nt('Präparat', 'Präparate')],
    ['Die Teilung der Klasse 7c in zwei Kurse gilt ab Montag.', 'Der Kern des Problems war der fehlende Schlüssel.']),
  topic('schulgarten', ...BIO, m('Schulgarten', 'Schulgärten'), 'den Garten der Schule mit Beeten und Obstbäumen',
    [nt('Beet', 'Beete'), m('Baum', 'Bäume'), nt('Gemüse'), m('Kompost', 'Komposte')],
    ['Im Garten des Nachbarhauses bellt ein Hund.', 'Der Baum am Parkplatz wird gefällt.']),
  topic('verdauung', ...BIO, f('Verdauung'), 'den Weg der Nahrung durch Magen und Darm',
    [m('Magen', 'Mägen'), m('Darm', 'Därme'), f('Nahrung'), nt('Enzym', 'Enzyme')],
    ['Mit leerem Magen lernt es sich schlecht, sagt die Mensa.', 'Die Nahrung für die Meerschweinchen bringt Familie Öztürk.']),
  topic('oekosystem', ...BIO, nt('Ökosystem', 'Ökosysteme'), 'das Zusammenleben von Tieren und Pflanzen im Wald',
    [f('Nahrungskette', 'Nahrungsketten'), nt('Lebewesen', 'Lebewesen'), m('Lebensraum', 'Lebensräume'), m('Zersetzer', 'Zersetzer')],
    ['Das neue System für die Schließfächer kommt nach den Ferien.', 'Die Kette am Fahrradständer ist gerissen.']),
  topic('meerschweinchen', ...BIO, nt('Meerschweinchen', 'Meerschweinchen'), 'die Pflege der Klassentiere',
    [m('Käfig', 'Käfige'), nt('Futter'), nt('Heu'), m('Tierarzt', 'Tierärzte')],
    ['Der Tierarzt kommt am Tag der offenen Tür und stellt seinen Beruf vor.', 'Das Futter für die Vögel am Fenster bringen die Fünftklässler.']),
  topic('chemieraum', ...CHEMIE, m('Chemieraum', 'Chemieräume'), 'die Sicherheit beim Experimentieren',
    [f('Schutzbrille', 'Schutzbrillen'), f('Säure', 'Säuren'), m('Abzug', 'Abzüge'), m('Versuch', 'Versuche')],
    ['Der Abzug vom Lohn betrifft nur die Mitarbeiter der Mensa.', 'Der Raum 112 ist wegen Schimmel gesperrt.']),
  topic('periodensystem', ...CHEMIE, nt('Periodensystem', 'Periodensysteme'), 'die Ordnung der chemischen Elemente',
    [nt('Element', 'Elemente'), nt('Atom', 'Atome'), f('Hauptgruppe', 'Hauptgruppen'), nt('Elektron', 'Elektronen')],
    ['Jedes Element des Bühnenbilds bauten die Schüler selbst.', 'Die Periode der Bauarbeiten endet im Oktober.']),
  topic('stromkreis', ...PHYSIK, m('Stromkreis', 'Stromkreise'), 'einfache elektrische Schaltungen',
    [m('Schalter', 'Schalter'), f('Glühlampe', 'Glühlampen'), m('Strom'), m('Widerstand', 'Widerstände')],
    ['Im Kreis der Eltern gab es Widerstand gegen den Termin.', 'Der Schalter für das Licht in der Aula ist defekt.']),
  topic('magnetismus', ...PHYSIK, m('Magnetismus', 'Magnetismus', 'Magnetismus'), 'Magnete, Pole und den Kompass',
    [m('Magnet', 'Magnete', 'Magneten'), m('Pol', 'Pole'), m('Kompass', 'Kompasse'), nt('Magnetfeld', 'Magnetfelder')],
    ['Die Tafel im Raum 204 ist nicht magnetisch.', 'Für die Wanderung brauchen alle einen Kompass.']),
  topic('waermelehre', ...PHYSIK, f('Wärmelehre'), 'Temperatur und die Ausdehnung von Körpern',
    [f('Temperatur', 'Temperaturen'), nt('Thermometer', 'Thermometer'), f('Wärme'), f('Ausdehnung', 'Ausdehnungen')],
    ['Bei Temperaturen über dreißig Grad gibt es hitzefrei.', 'Die Wärme in der Turnhalle kommt aus der alten Heizung.']),
  topic('mondfinsternis', ...PHYSIK, f('Mondfinsternis', 'Mondfinsternisse'), 'den Schatten der Erde auf dem Mond',
    [m('Mond', 'Monde'), m('Schatten', 'Schatten'), f('Sonne', 'Sonnen'), f('Erde')],
    ['Im Schatten der Kastanie stehen die Bänke.', 'Die Sonne schien beim ganzen Sportfest.']),
  topic('mittelalter', ...GESCHICHTE, nt('Mittelalter'), 'Burgen, Ritter und Klöster',
    [f('Burg', 'Burgen'), m('Ritter', 'Ritter'), nt('Kloster', 'Klöster'), m('Mönch', 'Mönche')],
    ['Die Theater-AG spielt einen Ritter aus Pappe.', 'Der Ausflug führt an einer Burg vorbei zum Badesee.']),
  topic('roemerzeit', ...GESCHICHTE, f('Römerzeit'), 'die Römer am Rhein und ihre Straßen',
    [m('Römer', 'Römer'), f('Legion', 'Legionen'), m('Limes'), nt('Kastell', 'Kastelle')],
    ['Die Zeit für die Anmeldung läuft am Freitag ab.', 'Herr Römer übernimmt die Klasse 8b.']),
  topic('industrialisierung', ...GESCHICHTE, f('Industrialisierung'), 'Fabriken und Dampfmaschinen im 19. Jahrhundert',
    [f('Fabrik', 'Fabriken'), f('Dampfmaschine', 'Dampfmaschinen'), m('Arbeiter', 'Arbeiter'), f('Eisenbahn', 'Eisenbahnen')],
    ['Die Klasse besichtigt eine Fabrik für Fahrräder.', 'Die Arbeiter der Baufirma beginnen um sechs.']),
  topic('klimazonen', ...ERDKUNDE, f('Klimazone', 'Klimazonen'), 'die Zonen der Erde vom Äquator bis zu den Polen',
    [nt('Klima'), m('Regenwald', 'Regenwälder'), f('Wüste', 'Wüsten'), m('Äquator')],
    ['Das Klima im Kollegium ist gut, sagt der Personalrat.', 'Die Zone vor dem Haupteingang ist kein Parkplatz.']),
  topic('flusslandschaft', ...ERDKUNDE, f('Flusslandschaft', 'Flusslandschaften'), 'Flüsse von der Quelle bis zur Mündung',
    [m('Fluss', 'Flüsse'), f('Quelle', 'Quellen'), f('Mündung', 'Mündungen'), nt('Ufer', 'Ufer')],
    ['Die Quelle des Zitats steht unter dem Plakat.', 'Der Fluss der Arbeit stockte wegen der Grippewelle.']),
  topic('stadtplan', ...ERDKUNDE, m('Stadtplan', 'Stadtpläne'), 'das Lesen von Karten und Maßstäben',
    [f('Karte', 'Karten'), m('Maßstab', 'Maßstäbe'), f('Straße', 'Straßen'), f('Legende', 'Legenden')],
    ['Karten für das Schulkonzert gibt es im Sekretariat.', 'Der Plan für die Sanierung der Stadt liegt im Rathaus.']),
  topic('vulkane', ...ERDKUNDE, m('Vulkan', 'Vulkane'), 'Vulkanausbrüche und Erdbeben',
    [f('Lava'), m('Ausbruch', 'Ausbrüche'), nt('Erdbeben', 'Erdbeben'), f('Erdplatte', 'Erdplatten')],
    ['Der Ausbruch der Grippe legte die halbe Klasse lahm.', 'Beim Experimentiertag baute die 6a einen Vulkan aus Backpulver.']),
  topic('schulchor', ...MUSIK, m('Schulchor', 'Schulchöre'), 'das gemeinsame Singen in der Aula',
    [nt('Lied', 'Lieder'), f('Stimme', 'Stimmen'), f('Probe', 'Proben'), nt('Konzert', 'Konzerte')],
    ['Bei der Wahl der Elternvertreter zählt jede Stimme.', 'Die Probe des Feueralarms ist am Dienstag.']),
  topic('notenlehre', ...MUSIK, f('Notenlehre'), 'das Lesen von Noten und Takten',
    [f('Note', 'Noten'), m('Takt', 'Takte'), m('Notenschlüssel', 'Notenschlüssel'), f('Tonleiter', 'Tonleitern')],
    ['Die Noten der Klassenarbeit stehen im Portal.', 'Mit Takt und Geduld löste die Lehrerin den Streit.']),
  topic('blockfloete', ...MUSIK, f('Blockflöte', 'Blockflöten'), 'den Anfängerunterricht auf der Flöte',
    [f('Flöte', 'Flöten'), m('Griff', 'Griffe'), nt('Griffloch', 'Grifflöcher'), nt('Notenheft', 'Notenhefte')],
    ['Der Griff der Tür zum Lehrerzimmer klemmt.', 'Ein Block mit kariertem Papier gehört in jede Federtasche.']),
  topic('ausstellung', ...KUNST, f('Ausstellung', 'Ausstellungen'), 'die Schau der Kunstkurse im Foyer',
    [nt('Gemälde', 'Gemälde'), f('Skulptur', 'Skulpturen'), f('Vernissage', 'Vernissagen'), nt('Foyer', 'Foyers')],
    ['Im Foyer steht der Getränkeautomat.', 'Die Ausstellung der Zeugnisse übernimmt das Sekretariat.']),
  topic('farbenlehre', ...KUNST, f('Farbenlehre'), 'Grundfarben, Mischfarben und den Farbkreis',
    [f('Farbe', 'Farben'), m('Farbkreis', 'Farbkreise'), m('Pinsel', 'Pinsel'), f('Grundfarbe', 'Grundfarben')],
    ['Die Farbe im Flur blättert ab.', 'Der Hausmeister braucht einen neuen Pinsel für die Bänke.']),
  topic('fussballturnier', ...SPORT, nt('Fußballturnier', 'Fußballturniere'), 'das Turnier der Schulmannschaften',
    [f('Mannschaft', 'Mannschaften'), nt('Tor', 'Tore'), m('Schiedsrichter', 'Schiedsrichter'), m('Pokal', 'Pokale')],
    ['Das Tor zum Schulhof ist ab 18 Uhr verschlossen.', 'Die Mannschaft der Mensa kocht ab Montag vegetarisch.']),
  topic('schwimmunterricht', ...SPORT, m('Schwimmunterricht', 'Schwimmunterricht'), 'den Unterricht im Hallenbad',
    [nt('Hallenbad', 'Hallenbäder'), f('Badekappe', 'Badekappen'), f('Bahn', 'Bahnen'), nt('Seepferdchen', 'Seepferdchen')],
    ['Die Bahn fährt während der Bauarbeiten nur stündlich.', 'Die Anmeldung zum Unterricht am Nachmittag ist freiwillig.']),
  topic('sportfest', ...SPORT, nt('Sportfest', 'Sportfeste'), 'Laufen, Springen und Werfen im Juli',
    [m('Lauf', 'Läufe'), m('Sprung', 'Sprünge'), f('Urkunde', 'Urkunden'), f('Staffel', 'Staffeln')],
    ['Das Schulfest im Herbst hat ein Zirkusthema.', 'Der Sprung in der Fensterscheibe wird repariert.']),
  topic('turnhalle', ...SPORT, f('Turnhalle', 'Turnhallen'), 'die Halle mit ihren Geräten und Umkleiden',
    [nt('Gerät', 'Geräte'), f('Matte', 'Matten'), f('Umkleide', 'Umkleiden'), m('Barren', 'Barren')],
    ['Das Gerät für die Laminierfolie steht im Kopierraum.', 'Die Halle der Stadtbücherei ist renoviert.']),
  topic('weltreligionen', ...ETHIK, f('Weltreligion', 'Weltreligionen'), 'Judentum, Christentum und Islam',
    [f('Religion', 'Religionen'), nt('Fest', 'Feste'), nt('Gebet', 'Gebete'), nt('Gotteshaus', 'Gotteshäuser')],
    ['Das Fest zum Schuljahresende ist am letzten Freitag.', 'Die Welt der Tiere zeigt der Zoo am Wandertag.']),
  topic('programmierung', ...INFO, f('Programmierung'), 'das Schreiben von Programmen mit Schleifen',
    [nt('Programm', 'Programme'), f('Schleife', 'Schleifen'), f('Anweisung', 'Anweisungen'), m('Algorithmus', 'Algorithmen')],
    ['Das Programm des Sommerfests hängt am Schwarzen Brett.', 'Die Schleife am Geschenk für die Schulleiterin ist rot.']),
  topic('passwortsicherheit', ...INFO, f('Passwortsicherheit'), 'sichere Passwörter für Schulkonten',
    [nt('Passwort', 'Passwörter'), nt('Konto', 'Konten'), f('Anmeldung', 'Anmeldungen'), m('Zugang', 'Zugänge')],
    ['Die Sicherheit auf dem Schulweg ist Thema der Verkehrswoche.', 'Das Konto des Fördervereins führt die Sparkasse.']),
  topic('lehrerzimmer', ...ORGA, nt('Lehrerzimmer', 'Lehrerzimmer'), 'den Raum der Lehrkräfte mit Drucker und Fächern',
    [m('Drucker', 'Drucker'), m('Kopierer', 'Kopierer'), nt('Postfach', 'Postfächer'), f('Kaffeemaschine', 'Kaffeemaschinen')],
    ['Das Zimmer des Hausmeisters ist neben der Aula.', 'Der Drucker in der Bibliothek druckt nur schwarz-weiß.']),
  topic('hausordnung', ...ORGA, f('Hausordnung', 'Hausordnungen'), 'die Regeln für alle im Schulhaus',
    [nt('Treppenhaus', 'Treppenhäuser'), nt('Handyverbot', 'Handyverbote'), f('Pause', 'Pausen'), nt('Verbot', 'Verbote')],
    ['Die Ordnung der Bücher im Regal ist alphabetisch.', 'Im Haus der Jugend findet das Konzert statt.']),
  topic('klassenfahrt', ...ORGA, f('Klassenfahrt', 'Klassenfahrten'), 'die mehrtägige Fahrt einer Klasse',
    [f('Jugendherberge', 'Jugendherbergen'), m('Zuschuss', 'Zuschüsse'), m('Ausflug', 'Ausflüge'), m('Koffer', 'Koffer')],
    ['Die Fahrt zum Schwimmbad übernimmt ein Bus.', 'Die Klasse 6b hat eine neue Klassenlehrerin.']),
  topic('elternabend', ...ORGA, m('Elternabend', 'Elternabende'), 'das Treffen der Eltern einer Klasse',
    [m('Elternvertreter', 'Elternvertreter'), f('Einladung', 'Einladungen'), f('Tagesordnung', 'Tagesordnungen'), nt('Protokoll', 'Protokolle')],
    ['Am Abend des Sommerfests spielt die Schulband.', 'Die Einladung zur Zeugnisfeier geht an alle Familien.']),
  topic('mittagessen', ...ORGA, nt('Mittagessen', 'Mittagessen'), 'das Essen in der Mensa',
    [m('Speiseplan', 'Speisepläne'), nt('Getränk', 'Getränke'), f('Essensmarke', 'Essensmarken'), f('Mensa', 'Mensen')],
    ['Das Essen für das Sommerfest bringen die Eltern mit.', 'Am Mittag schließt die Bibliothek für eine Stunde.']),
  topic('vertretungsplan', ...ORGA, m('Vertretungsplan', 'Vertretungspläne'), 'ausfallende und vertretene Stunden',
    [f('Stunde', 'Stunden'), m('Ausfall', 'Ausfälle'), f('Lehrkraft', 'Lehrkräfte'), f('Vertretung', 'Vertretungen')],
    ['Die Vertretung der Schülerschaft trifft sich im Raum 5.', 'Der Plan für den Wandertag steht.']),
  topic('zeugnisausgabe', ...ORGA, f('Zeugnisausgabe', 'Zeugnisausgaben'), 'die Zeugnisse am Ende des Halbjahrs',
    [nt('Zeugnis', 'Zeugnisse', 'Zeugnisses'), f('Konferenz', 'Konferenzen'), nt('Halbjahr', 'Halbjahre'), f('Versetzung', 'Versetzungen')],
    ['Die Ausgabe der Schulbücher ist am ersten Schultag.', 'Die Konferenz der Schulleiter tagt in Berlin.']),
  topic('krankmeldung', ...ORGA, f('Krankmeldung', 'Krankmeldungen'), 'was Eltern tun, wenn ein Kind krank ist',
    [nt('Attest', 'Atteste'), nt('Sekretariat', 'Sekretariate'), m('Fehltag', 'Fehltage'), f('Entschuldigung', 'Entschuldigungen')],
    ['Die Meldung zum Vorlesewettbewerb geht an Frau Kaya.', 'Eine Entschuldigung schrieb die 9a an die Nachbarn.']),
  topic('ferienkalender', ...ORGA, m('Ferienkalender', 'Ferienkalender'), 'alle Ferien und freien Tage des Schuljahrs',
    [f('Ferien', 'Ferien'), m('Feiertag', 'Feiertage'), m('Brückentag', 'Brückentage'), f('Sommerferien', 'Sommerferien')],
    ['Der Kalender für die Raumbuchung ist online.', 'Das Ferienlager des Sportvereins ist voll.']),
  topic('schulbibliothek', ...ORGA, f('Schulbibliothek', 'Schulbibliotheken'), 'die Bücherei der Schule',
    [f('Ausleihe', 'Ausleihen'), m('Bibliotheksausweis', 'Bibliotheksausweise'), f('Leseecke', 'Leseecken'), f('Öffnungszeit', 'Öffnungszeiten')],
    ['Die Stadtbibliothek hat montags geschlossen.', 'Die Öffnungszeit des Sekretariats endet um 14 Uhr.']),
  topic('fundbuero', ...ORGA, nt('Fundbüro', 'Fundbüros'), 'verlorene Sachen und wo sie liegen',
    [f('Jacke', 'Jacken'), f('Mütze', 'Mützen'), m('Schlüssel', 'Schlüssel'), f('Trinkflasche', 'Trinkflaschen')],
    ['Im Büro der Schulleitung hängt ein neues Bild.', 'Die Jacke der Schulmannschaft ist blau.']),
  topic('schulweg', ...ORGA, m('Schulweg', 'Schulwege'), 'den sicheren Weg zur Schule',
    [f('Ampel', 'Ampeln'), nt('Fahrrad', 'Fahrräder'), m('Bus', 'Busse', 'Busses'), m('Zebrastreifen', 'Zebrastreifen')],
    ['Auf dem Weg zum Erfolg hilft die Hausaufgabenbetreuung.', 'Die Ampel der Schulkonferenz steht auf Grün.']),
  topic('pausenaufsicht', ...ORGA, f('Pausenaufsicht', 'Pausenaufsichten'), 'die Aufsicht der Lehrkräfte in der Pause',
    [m('Schulhof', 'Schulhöfe'), f('Aufsicht', 'Aufsichten'), m('Streit', 'Streite'), m('Dienstplan', 'Dienstpläne')],
    ['Die Aufsicht über die Prüfung führt Herr Weber.', 'Die Pause zwischen den Konzerten dauert zwanzig Minuten.']),
  topic('schuelerzeitung', ...ORGA, f('Schülerzeitung', 'Schülerzeitungen'), 'die Zeitung von Schülern für Schüler',
    [m('Artikel', 'Artikel'), f('Redaktion', 'Redaktionen'), f('Ausgabe', 'Ausgaben'), nt('Interview', 'Interviews')],
    ['Die Zeitung im Lehrerzimmer liegt neben dem Kaffee.', 'Der Artikel über die Schule erschien im Stadtanzeiger.']),
  topic('schuelervertretung', ...ORGA, f('Schülervertretung', 'Schülervertretungen'), 'die gewählten Vertreter der Schüler',
    [m('Schulsprecher', 'Schulsprecher'), f('Wahl', 'Wahlen'), f('Versammlung', 'Versammlungen'), m('Klassensprecher', 'Klassensprecher')],
    ['Die Wahl des Schulessens fiel auf Nudeln.', 'Die Versammlung des Personals beginnt um 15 Uhr.']),
  topic('feueralarm', ...ORGA, m('Feueralarm', 'Feueralarme'), 'was bei einem Brand zu tun ist',
    [m('Sammelplatz', 'Sammelplätze'), m('Notausgang', 'Notausgänge'), f('Räumung', 'Räumungen'), m('Feuerlöscher', 'Feuerlöscher')],
    ['Das Feuer beim Sommerfest war ein Lagerfeuer mit Stockbrot.', 'Der Alarm der Fahrradgarage ist zu laut.']),
  topic('schulsanitaeter', ...ORGA, m('Schulsanitätsdienst', 'Schulsanitätsdienste'), 'erste Hilfe durch ausgebildete Schüler',
    [m('Sanitäter', 'Sanitäter'), m('Verband', 'Verbände'), nt('Pflaster', 'Pflaster'), f('Hilfe', 'Hilfen')],
    ['Der Verband der Lehrkräfte lädt zur Tagung.', 'Das Pflaster auf dem Schulhof wird erneuert.']),
  topic('betriebspraktikum', ...ORGA, nt('Betriebspraktikum', 'Betriebspraktika'), 'das Praktikum der neunten Klassen in einem Betrieb',
    [m('Betrieb', 'Betriebe'), m('Bericht', 'Berichte'), f('Bewerbung', 'Bewerbungen'), m('Praktikumsplatz', 'Praktikumsplätze')],
    ['Der Betrieb der Mensa ruht in den Ferien.', 'Der Bericht der Schulleitung liegt dem Protokoll bei.']),
  topic('abiturpruefung', ...ORGA, f('Abiturprüfung', 'Abiturprüfungen'), 'die Prüfungen zum Abitur',
    [f('Prüfung', 'Prüfungen'), f('Klausur', 'Klausuren'), m('Termin', 'Termine'), nt('Prüfungsfach', 'Prüfungsfächer')],
    ['Die Prüfung der Elektrogeräte macht der Hausmeister.', 'Der Termin für das Schulfoto steht fest.']),
  topic('stundenplan', ...ORGA, m('Stundenplan', 'Stundenpläne'), 'die Stunden jeder Klasse in der Woche',
    [nt('Fach', 'Fächer'), m('Raum', 'Räume'), f('Woche', 'Wochen'), f('Doppelstunde', 'Doppelstunden')],
    ['Im Raum 12 steht ein neues Klavier.', 'Diese Woche ist Projektwoche.']),
  topic('schliessfach', ...ORGA, nt('Schließfach', 'Schließfächer'), 'abschließbare Fächer für Schüler',
    [nt('Pfand', 'Pfänder'), m('Flur', 'Flure'), f('Miete', 'Mieten'), nt('Schloss', 'Schlösser', 'Schlosses')],
    ['Das Schloss Neuschwanstein ist Ziel der Studienfahrt.', 'Im Flur vor der Aula hängen die Plakate.']),
  topic('hausaufgabenbetreuung', ...ORGA, f('Hausaufgabenbetreuung'), 'die Betreuung am Nachmittag beim Lernen',
    [f('Hausaufgabe', 'Hausaufgaben'), f('Betreuung'), m('Nachmittag', 'Nachmittage'), f('Lernzeit', 'Lernzeiten')],
    ['Am Nachmittag trainiert die Volleyball-AG.', 'Die Betreuung der Website übernimmt Herr Lang.']),
  topic('foerderverein', ...ORGA, m('Förderverein', 'Fördervereine'), 'den Verein, der die Schule unterstützt',
    [nt('Mitglied', 'Mitglieder'), f('Spende', 'Spenden'), m('Beitrag', 'Beiträge'), m('Vorstand', 'Vorstände')],
    ['Jedes Mitglied der Klasse bringt einen Kuchen mit.', 'Der Beitrag der 7b zum Schulfest ist ein Theaterstück.']),
  topic('klassenbuch', ...ORGA, nt('Klassenbuch', 'Klassenbücher'), 'die Einträge zu Unterricht und Fehlzeiten',
    [m('Eintrag', 'Einträge'), f('Fehlzeit', 'Fehlzeiten'), m('Tadel', 'Tadel'), m('Klassendienst', 'Klassendienste')],
    ['Das Buch über die Geschichte der Schule ist vergriffen.', 'Der Eintrag ins Gästebuch der Partnerschule ist lustig.']),
];

// What the testbed's shares contain: folders with their NT ACLs, wiki pages and ordinary files.
import { indexer, globalAdminGroup, mathTeachersGroup, type GroupName } from './domain.js';

export type Access = 'READ' | 'CHANGE' | 'FULL';

export interface Grant {
  /** A group or account of `domain.ts`, or `Domain Users`. */
  principal: GroupName | 'Domain Users' | typeof indexer.user;
  access: Access;
  deny?: boolean;
}

export interface FolderSpec {
  /** Relative to the share root with `/` separators; '' is the root. */
  path: string;
  /** Own ACL (replacing the inherited one, with `alwaysGranted` added); folders without inherit. */
  acl?: Grant[];
}

export interface ShareContent {
  share: string;
  folders: FolderSpec[];
  /** Relative path -> UTF-8 content; parent folders must be listed in `folders`. */
  files: Record<string, string>;
}

/** Part of every own ACL: admins manage everything, the indexer reads all wiki content. */
export const alwaysGranted: Grant[] = [
  { principal: globalAdminGroup, access: 'FULL' },
  { principal: indexer.user, access: 'READ' },
];

const schule: ShareContent = {
  share: 'schule',
  folders: [
    { path: '', acl: [{ principal: 'Domain Users', access: 'READ' }, { principal: 'Lehrer', access: 'CHANGE' }] },
    { path: '.wiki' },
    { path: 'Fachschaften' },
    { path: 'Fachschaften/Deutsch', acl: [{ principal: 'Lehrer', access: 'CHANGE' }] },
    { path: 'Fachschaften/Deutsch/.wiki' },
    { path: 'Fachschaften/Mathe', acl: [{ principal: mathTeachersGroup, access: 'CHANGE' }] },
    { path: 'Fachschaften/Mathe/.wiki' },
    {
      path: 'Lehrerzimmer',
      acl: [
        { principal: 'Schueler', access: 'READ', deny: true },
        { principal: 'Domain Users', access: 'READ' },
        { principal: 'Lehrer', access: 'CHANGE' },
      ],
    },
    { path: 'Lehrerzimmer/.wiki' },
    { path: 'Lehrerzimmer/Protokolle' },
    {
      path: 'Schülerzeitung',
      acl: [{ principal: 'Schueler', access: 'CHANGE' }, { principal: 'Lehrer', access: 'CHANGE' }],
    },
    { path: 'Schülerzeitung/.wiki' },
  ],
  files: {
    '.wiki/index.md': `# Willkommen im Schul-Wiki

Dieses Wiki sammelt alles, was im Schulalltag wichtig ist.

- [Schulregeln](regeln.md)
- Fachschaften: Deutsch und Mathematik haben eigene Seiten.
- Termine stehen im Aushang im Eingangsbereich.
`,
    '.wiki/regeln.md': `# Schulregeln

1. Der Unterricht beginnt pünktlich um 8:00 Uhr.
2. Handys bleiben während des Unterrichts in der Tasche.
3. In den Pausen ist der Schulhof der Aufenthaltsort.
4. Wir gehen respektvoll miteinander um.

Bei Fragen hilft das Sekretariat weiter.
`,
    'Aushang.txt': 'Elternsprechtag am 12. März von 15 bis 19 Uhr in der Aula.\n',
    'Fachschaften/Deutsch/.wiki/index.md': `# Fachschaft Deutsch

Die Fachschaft trifft sich jeden ersten Dienstag im Monat.

## Themen
- Lektüreliste für die Klassen 5 bis 10
- Korrekturrichtlinien für Aufsätze
`,
    'Fachschaften/Deutsch/.wiki/lektüre.md': `# Lektüreliste

| Klasse | Werk |
|---|---|
| 7 | Krabat (Otfried Preußler) |
| 9 | Der Besuch der alten Dame (Friedrich Dürrenmatt) |
| 10 | Faust I (Johann Wolfgang von Goethe) |
`,
    'Fachschaften/Deutsch/Arbeitsblatt Erörterung.txt': 'Aufbau einer Erörterung: Einleitung, Hauptteil, Schluss.\n',
    'Fachschaften/Mathe/.wiki/index.md': `# Fachschaft Mathematik

Materialien und Absprachen der Mathe-Lehrkräfte.

- [Formelsammlung](formeln.md)
- Klausurtermine werden im Kalender eingetragen.
`,
    'Fachschaften/Mathe/.wiki/formeln.md': `# Formelsammlung

## Geometrie
- Flächeninhalt eines Kreises: A = π · r²
- Satz des Pythagoras: a² + b² = c²

## Algebra
- Binomische Formel: (a + b)² = a² + 2ab + b²
- Lösungsformel für quadratische Gleichungen: x = (−b ± √(b² − 4ac)) / 2a
`,
    'Fachschaften/Mathe/Klausur 9a.txt': 'Klausur 9a: Quadratische Funktionen, Bearbeitungszeit 90 Minuten.\n',
    'Lehrerzimmer/.wiki/index.md': `# Lehrerzimmer

Interne Informationen für das Kollegium.

- Vertretungsplan: täglich ab 7:30 Uhr aktualisiert
- Konferenzprotokolle liegen im Ordner Protokolle.
`,
    'Lehrerzimmer/Protokolle/Gesamtkonferenz.txt': 'Protokoll der Gesamtkonferenz: Beschluss zur Projektwoche im Juni.\n',
    'Schülerzeitung/.wiki/index.md': `# Schülerzeitung „Pausenbrot“

Die Redaktion trifft sich donnerstags in Raum 104.

- [Redaktion](redaktion.md)
`,
    'Schülerzeitung/.wiki/redaktion.md': `# Redaktion

Chefredaktion: Klasse 10b. Beiträge bitte bis Monatsende einreichen.
`,
  },
};

const verwaltung: ShareContent = {
  share: 'verwaltung',
  folders: [
    { path: '', acl: [{ principal: 'Verwaltung', access: 'CHANGE' }] },
    { path: '.wiki' },
    { path: 'Haushalt', acl: [{ principal: 'Verwaltung', access: 'READ' }] },
    { path: 'Haushalt/.wiki' },
  ],
  files: {
    '.wiki/index.md': `# Verwaltung

Abläufe des Sekretariats.

- [Zeugnisausgabe](zeugnisse.md)
`,
    '.wiki/zeugnisse.md': `# Ablauf der Zeugnisausgabe

1. Noten bis zur Zeugniskonferenz eintragen.
2. Zeugnisse drucken und unterschreiben lassen.
3. Ausgabe am letzten Schultag in der dritten Stunde.
`,
    'Haushalt/.wiki/index.md': `# Haushalt

Der Schulhaushalt wird jährlich im Januar mit dem Schulträger abgestimmt.
`,
    'Haushalt/Budget 2026.csv': 'Posten;Betrag\nLehrmittel;12000\nIT-Ausstattung;8500\n',
  },
};

export const shareContents: readonly ShareContent[] = [schule, verwaltung];

/**
 * Wiki pages that look like a school's: headings, paragraphs, lists, a table, links, now and then a code block,
 * in German-like words; deterministic for a seed. Used by the reconciler tests and bench/index.
 */
import { randomInts } from '../../unit/reconcile/fixtures.js';

const WORDS = [
  'Schule', 'Klasse', 'Elternabend', 'Hausaufgaben', 'Vertretungsplan', 'Klassenfahrt', 'Mathematik', 'Deutsch', 'Englisch',
  'Biologie', 'Sport', 'Pause', 'Mensa', 'Bibliothek', 'Projekttag', 'Zeugnis', 'Konferenz', 'Termin', 'Raum', 'Lehrkraft',
  'Schülerinnen', 'Schüler', 'Aufsicht', 'Prüfung', 'Notenschluss', 'Arbeitsblatt', 'Stundenplan', 'Ausflug', 'Förderung',
  'der', 'die', 'das', 'und', 'ist', 'im', 'mit', 'für', 'auf', 'den', 'von', 'zu', 'am', 'wird', 'bitte', 'alle', 'nach', 'bei',
];

function sentence(random: (n: number) => number): string {
  const words = Array.from({ length: 6 + random(12) }, () => WORDS[random(WORDS.length)]!);
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(random: (n: number) => number): string {
  return Array.from({ length: 2 + random(5) }, () => sentence(random)).join(' ');
}

/** A page of about `bytes` bytes (UTF-8) for `seed`. */
export function markdownPage(seed: number, bytes: number): string {
  const random = randomInts(seed);
  const parts = [`# ${sentence(random).slice(0, -1)}`, '', paragraph(random), ''];
  let size = Buffer.byteLength(parts.join('\n'));
  while (size < bytes) {
    let block: string;
    switch (random(6)) {
      case 0:
        block = `## ${sentence(random).slice(0, -1)}\n`;
        break;
      case 1:
        block = Array.from({ length: 2 + random(4) }, () => `- ${sentence(random)}`).join('\n') + '\n';
        break;
      case 2:
        block = `| Tag | Raum | Thema |\n|---|---|---|\n${Array.from({ length: 2 + random(3), }, () => `| ${WORDS[random(9)]} | R${random(300)} | ${WORDS[random(WORDS.length)]} |`).join('\n')}\n`;
        break;
      case 3:
        block = random(3) === 0 ? '```\nplan = lade("stundenplan")\nzeige(plan)\n```\n' : `Siehe [${WORDS[random(WORDS.length)]}](../${WORDS[random(9)]}.md).\n`;
        break;
      default:
        block = `${paragraph(random)}\n`;
    }
    parts.push(block);
    size += Buffer.byteLength(block) + 1;
  }
  return parts.join('\n');
}

// Class folders with wiki pages deleted over SMB by a teacher while the service runs, as Windows users and scripts do
// it: smbclient (encrypted, as anna, never through the service), half with `deltree`, half in Windows Explorer's
// order (each folder's files, then the folder, deepest first). Used by test/integration/wiki/watch-delete.test.ts and
// bench/index/folder-deletes.ts.
import { randomInt } from 'node:crypto';
import type { SmbShare } from '../../../src/smb/index.js';
import type { TestbedEnv } from '../../testbed/env.js';
import { waitFor } from '../../support/service.js';
import { runSambaClient } from '../../support/smb-logons.js';
import { writeFiles } from '../reconcile/support.js';
import { WikiClient, type Caller } from './wiki-service.js';

const ANNA: Caller = { user: 'anna', groups: ['Lehrer'] };
/** The `.wiki/` folders of each class folder, one page each. */
const SUBJECTS = ['Mathe', 'Deutsch', 'Physik'];
/** Class folders made, indexed and then deleted one after the other, per round. */
const ROUND = 20;

/**
 * The word of one class folder's pages: six random letters, which no other page has. Waiting until the pages are
 * found, and then gone, asks search for the word every 50 ms, and a search that finds no page as typed tries again
 * with the typo rule (src/search/query.ts, TYPO_FUZZINESS), whose automata Elasticsearch builds anew for each search
 * and again for each hit it highlights. The numbered words of before (`Loeschwort12x<ms>`) were long enough for two
 * changed letters and one letter from the other folders' words, so every such wait found those folders' pages and
 * highlighted them: run alone, Elasticsearch spent 70 of the file's 112 core-seconds on it, 3.6 with these words.
 * Six letters allow one change, and random ones lie far apart.
 */
function folderWord(): string {
  return Array.from({ length: 6 }, () => String.fromCharCode(0x61 + randomInt(26))).join('');
}

export interface RecursiveDeletes {
  /** The deletes that failed at the first try, with what smbclient said. */
  failed: string[];
  /** For each delete, ms from its end until its pages were gone from search, ascending. */
  goneMs: number[];
}

/**
 * What smbclient says when it got no session to run commands in: its negotiation or logon failed (on a loaded host
 * the server may answer too late, NT_STATUS_IO_TIMEOUT, as it did once in CI), so no command ran.
 */
const NO_SESSION = /^(protocol negotiation failed|session setup failed|tree connect failed)/m;
/** Tries of one smbclient run that got no session, before what it said counts as its answer. */
const SESSION_TRIES = 3;

/**
 * smbclient as `account` running `commands` on `schule`: what it reported, '' when every command succeeded. A run
 * that got no session to run them in (NO_SESSION) is made again: no command of it reached the server.
 */
export async function smbclient(env: TestbedEnv, account: { user: string; password: string }, commands: string[]): Promise<string> {
  const args = ['--client-protection=encrypt', '-c', commands.join('; ')];
  let said = '';
  for (let attempt = 1; attempt <= SESSION_TRIES; attempt++) {
    const { stdout, stderr } = await runSambaClient('smbclient', env, 'schule', account, args).catch((error: { stdout: string; stderr: string }) => error);
    said = `${stdout}${stderr}`;
    if (!NO_SESSION.test(said)) break;
  }
  return /NT_STATUS_/.test(said) ? said.trim().replaceAll('\n', ' | ') : '';
}

export const windows = (path: string) => path.replaceAll('/', '\\');

/** Explorer's order: in each folder its files, then its sub-folders, each removed once empty; the class folder last. */
function explorerOrder(tree: string): string[] {
  return [
    ...SUBJECTS.flatMap((s) => [`del ${windows(`${tree}/${s}/.wiki/seite.md`)}`, `rmdir ${windows(`${tree}/${s}/.wiki`)}`, `rmdir ${windows(`${tree}/${s}`)}`]),
    `rmdir ${windows(tree)}`,
  ];
}

/**
 * Makes `trees` class folders below `root` (as anna, `anna` her share), waits until their pages are found, then
 * deletes each (alternating deltree and Explorer's order) and waits until its pages are gone from search. A delete
 * that fails at the first try is counted, and finished with deltree.
 */
export async function recursiveDeletes(serviceUrl: string, env: TestbedEnv, anna: SmbShare, root: string, trees: number): Promise<RecursiveDeletes> {
  const api = new WikiClient(serviceUrl, env);
  const teacher = { user: 'anna', password: env.users['anna']!.password };
  const failed: string[] = [];
  const goneMs: number[] = [];
  for (let first = 0; first < trees; first += ROUND) {
    const round = Array.from({ length: Math.min(ROUND, trees - first) }, (_, i) => ({ path: `${root}/Klasse-${first + i}`, word: folderWord() }));
    await writeFiles(anna, round.flatMap(({ path, word }) => SUBJECTS.map((s): [string, string] => [`${path}/${s}/.wiki/seite.md`, `# ${s}\n\n${word}\n`])));
    for (const { word } of round) await waitFor(async () => (await api.searchedPages(ANNA, { q: word })).length === SUBJECTS.length, 20_000);
    for (const [i, { path, word }] of round.entries()) {
      const said = await smbclient(env, teacher, (first + i) % 2 === 0 ? [`deltree ${windows(path)}`] : explorerOrder(path));
      if (said !== '') {
        failed.push(`${path}: ${said}`);
        await smbclient(env, teacher, [`deltree ${windows(path)}`]);
      }
      const deleted = performance.now();
      await waitFor(async () => (await api.searchedPages(ANNA, { q: word })).length === 0, 20_000);
      goneMs.push(performance.now() - deleted);
    }
  }
  return { failed, goneMs: goneMs.sort((a, b) => a - b) };
}

// A save in progress as a pupil sees it over SMB, for the tests of the write
// path's privacy and crash safety: a folder the pupils may read with a page
// that denies them, a PUT whose body stops part-way, the share as the DC
// Administrator lists it, and every way the pupil may open a file to read it.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import {
  Access,
  CreateOptions,
  Disposition,
  SmbError,
  type SecurityDescriptor,
  type SmbClient,
  type SmbShare,
  type SmbStat,
} from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import type { RunningService } from '../../support/service.js';
import type { TestbedEnv } from '../../testbed/env.js';
import { shareAs } from '../reconcile/support.js';
import { smbcacls } from '../smb/testbed.js';
import { DavClient, account, basic, type Account } from './dav-client.js';

/** FILE_GENERIC_READ | FILE_GENERIC_WRITE | DELETE | EXECUTE: "Change" in the Windows dialog. */
const CHANGE = '0x1301bf';
/** FILE_GENERIC_READ: "Read" without execute. */
const READ = '0x120089';
/** How long the share must hold still before a paused save counts as having written what it got. */
const STILL_MS = 1_000;
const SETTLE_LIMIT_MS = 20_000;

export interface PupilFolder {
  dir: string;
  /** `schule` as the DC Administrator, as anna (a teacher, who saves) and as carla (a pupil, who looks). */
  admin: SmbShare;
  anna: SmbShare;
  carla: SmbShare;
  /** A file of the folder that the pupil may read: shows that the pupil's probe reads what it may. */
  notice: string;
  /** SDDL of a page only teachers (and the indexer) may read, with an explicit deny of reading for carla. */
  teachersOnly: string;
}

/**
 * Makes `dir` in `schule` as the DC Administrator: pupils (Schueler) may list and read it, teachers (Lehrer) may
 * change it, and so every file created in it inherits read access for pupils. Every ACL lets the indexer read,
 * so that index passes of the service see no errors.
 */
export async function pupilFolder(smb: SmbClient, env: TestbedEnv, dir: string): Promise<PupilFolder> {
  const admin = shareAs(smb, env, env.dc_admin, 'schule');
  const lehrer = env.groups['Lehrer']!;
  const schueler = env.groups['Schueler']!;
  const indexer = env.users[env.indexer.user]!.sid;
  await admin.mkdir(dir);
  smbcacls('schule', dir, ['--sddl', '--set',
    `D:PAI(A;OICI;FA;;;BA)(A;OICI;${CHANGE};;;${lehrer})(A;OICI;${READ};;;${schueler})(A;OICI;${READ};;;${indexer})`]);
  const notice = `${dir}/aushang.txt`;
  await admin.writeFile(notice, 'Wandertag am Freitag\n');
  const teachersOnly = `D:P(D;;0x1;;;${env.users['carla']!.sid})(A;;FA;;;BA)(A;;${CHANGE};;;${lehrer})(A;;${READ};;;${indexer})`;
  return {
    dir, notice, teachersOnly, admin,
    anna: shareAs(smb, env, account(env, 'anna'), 'schule'),
    carla: shareAs(smb, env, account(env, 'carla'), 'schule'),
  };
}

/**
 * Writes `path` in the folder as anna (who becomes its owner) and gives it the teachers-only DACL; returns its
 * descriptor as the Administrator reads it.
 */
export async function teachersPage(folder: PupilFolder, name: string, content: Buffer): Promise<{ path: string; sd: SecurityDescriptor }> {
  const path = `${folder.dir}/${name}`;
  await folder.anna.writeFile(path, content);
  smbcacls('schule', path, ['--sddl', '--set', folder.teachersOnly]);
  return { path, sd: await folder.admin.getSecurity(path) };
}

/** `size` bytes of `marker` lines: any part of the body that is read holds the marker. */
export function markedBody(marker: string, size: number): Buffer {
  return Buffer.alloc(size, `${marker}\n`);
}

/** The status of the answer, or 0 with the error when none came (a killed service). */
export interface PutAnswer {
  status: number;
  text: string;
}

export interface PausedPut {
  /** Resolves once the first part of the body is handed to the socket. */
  paused: Promise<void>;
  /** Sends the rest of the body; resolves once it is handed to the socket (or the request ended). */
  resume(): Promise<void>;
  answer: Promise<PutAnswer>;
}

/**
 * A PUT of `body` (with its Content-Length) through the service as `as`, of which only the first `pauseAt` bytes
 * are sent until resume().
 */
export function pausedPut(service: RunningService, as: Account, path: string, body: Buffer, pauseAt: number): PausedPut {
  // A connection of its own (agent: false): a killed service must not leave a pooled socket behind.
  const req = request(new DavClient(service, as).url(path), {
    method: 'PUT',
    agent: false,
    headers: { authorization: basic(as), 'content-length': body.length },
  });
  const answer = new Promise<PutAnswer>((resolve) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      res.on('error', (err) => resolve({ status: 0, text: err.message }));
    });
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
  });
  // A request that ended early (refused, or the service gone) calls no write callback: the answer ends the wait.
  const send = (part: Buffer, end: boolean): Promise<void> => Promise.race([
    new Promise<void>((resolve) => (end ? req.end(part, resolve) : req.write(part, () => resolve()))),
    answer.then(() => undefined),
  ]);
  let resumed: Promise<void> | undefined;
  return {
    paused: send(body.subarray(0, pauseAt), false),
    resume: () => (resumed ??= send(body.subarray(pauseAt), true)),
    answer,
  };
}

/**
 * Every entry of the share as the DC Administrator lists it, but not other tests' scratch folders (`_...`): files
 * running side by side make and remove theirs while this one looks.
 */
export async function shareEntries({ admin, dir }: PupilFolder): Promise<SmbStat[]> {
  const entries: SmbStat[] = [];
  const othersScratch = (path: string) => path.startsWith('_') && path !== dir && !path.startsWith(`${dir}/`);
  // The whole share, not only the folder: a save may stage its bytes elsewhere.
  for await (const e of admin.walk('', { descend: (d) => !othersScratch(d.path) })) if (!othersScratch(e.path)) entries.push(e);
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/** The share's entries once they hold still for STILL_MS (the service has written what it got), at most SETTLE_LIMIT_MS. */
export async function settledEntries(folder: PupilFolder): Promise<SmbStat[]> {
  const picture = (entries: SmbStat[]): string => entries.map((e) => `${e.path}|${e.size}`).join('\n');
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  let entries = await shareEntries(folder);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, STILL_MS));
    const now = await shareEntries(folder);
    if (picture(now) === picture(entries) || Date.now() > deadline) return now;
    entries = now;
  }
}

interface PupilRead {
  /** Per share mode 0..7: the error code of the open or the read, or what was read. */
  outcomes: string[];
  /** Everything read, under any share mode. */
  contents: Buffer[];
}

/**
 * Opens `path` as the pupil for FILE_READ_DATA under each of the 8 share modes and reads it. An open that another
 * holds refuses the modes that do not share what it was opened with (SHARING_VIOLATION), so only all 8 tell
 * whether the pupil can read the file at all.
 */
async function pupilReads(pupil: SmbShare, path: string): Promise<PupilRead> {
  const read: PupilRead = { outcomes: [], contents: [] };
  for (let shareAccess = 0; shareAccess < 8; shareAccess++) {
    try {
      const content = await pupil.withTree(async (tree) => {
        const handle = await FileHandle.open(tree, {
          name: path.replaceAll('/', '\\'), desiredAccess: Access.FILE_READ_DATA, disposition: Disposition.OPEN, shareAccess,
          createOptions: CreateOptions.NON_DIRECTORY_FILE,
        });
        try {
          return await handle.read(0, handle.info.endOfFile);
        } finally {
          await handle.close();
        }
      });
      read.outcomes.push(`read ${content.length} bytes`);
      read.contents.push(content);
    } catch (err) {
      read.outcomes.push(err instanceof SmbError ? err.code : String(err));
    }
  }
  return read;
}

/** Outcomes per share mode, runs of the same one joined: `0-5 SHARING_VIOLATION, 6-7 read 12 bytes`. */
function byModes(outcomes: string[]): string {
  const runs: string[] = [];
  for (let first = 0, mode = 1; mode <= outcomes.length; mode++) {
    if (outcomes[mode] === outcomes[first]) continue;
    runs.push(`${first === mode - 1 ? first : `${first}-${mode - 1}`} ${outcomes[first]}`);
    first = mode;
  }
  return runs.join(', ');
}

/**
 * Tries every file of `entries` as the pupil, prints what happened (`+` marks entries not in `before`), and fails
 * if readable content holds `marker` (bytes of the save) or an entry that is not in `before` could be read at all.
 * The folder's notice must be read: the pupil's probe works.
 */
export async function assertPupilReadsNothingNew(
  folder: PupilFolder, entries: SmbStat[], before: ReadonlySet<string>, marker: string, when: string,
): Promise<void> {
  const lines: string[] = [];
  const leaks: string[] = [];
  let noticeRead = false;
  for (const e of entries.filter((entry) => !entry.isDirectory)) {
    const fresh = !before.has(e.path);
    const { outcomes, contents } = await pupilReads(folder.carla, e.path);
    const marked = contents.some((c) => c.includes(marker));
    lines.push(`  ${fresh ? '+' : ' '} ${e.path} (${e.size} bytes): ${byModes(outcomes)}${marked ? ', NEW BYTES' : ''}`);
    if (marked) leaks.push(`${e.path} holds bytes of the save`);
    else if (fresh && contents.length > 0) leaks.push(`${e.path} appeared during the save and the pupil read it`);
    if (e.path === folder.notice) noticeRead = contents.length > 0;
  }
  const listed = (await folder.carla.readdir(folder.dir)).map((e) => e.name);
  console.log(`${when}: the pupil lists ${folder.dir}: ${listed.join(', ')}\n`
    + `the share as the Administrator lists it (+ new since the save began), the pupil's reads by share mode:\n${lines.join('\n')}`);
  assert.ok(noticeRead, `the pupil could not read ${folder.notice}, which the folder lets pupils read: the probe is broken`);
  assert.deepEqual(leaks, [], `${when}: the pupil can read what the save wrote`);
}

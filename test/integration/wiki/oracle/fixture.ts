/**
 * The oracle's seeded wiki: folders and pages in a scratch folder of a testbed share, with NT ACLs of every kind a
 * school's file server holds — inherited from the share root, explicit and protected (SE_DACL_PROTECTED), explicit
 * on top of inherited entries, deny before allow, allow before deny (not canonical), Everyone, Authenticated Users,
 * entries that do not bear on reading (inherit-only, write-only), an empty DACL and a NULL DACL. Every own DACL
 * ends with the administrators, the indexer and one editor user (modify), so that pages of every kind have a writer.
 *
 * Security descriptors are written with Samba's own `setntacl` on the DC's local path (one Python process per
 * batch): smbcacls sorts entries canonically, so it cannot write an allow-before-deny DACL. Explicit entries put
 * in front of inherited ones also set the DACL's auto-inherited flag, so that what a folder passes on is marked
 * inherited (ID) in its children, as on Windows.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SmbShare } from '../../../../src/smb/index.js';
import type { TestbedEnv } from '../../../testbed/env.js';
import type { OracleDirectory } from './directory.js';

const run = promisify(execFile);

/** Access masks as the ACEs carry them. */
export const Mask = { read: 0x1200a9, modify: 0x1301bf, full: 0x1f01ff, writeOnly: 0x116 } as const;

export type FolderKind = 'inherited' | 'protected' | 'merged' | 'deny-first' | 'everyone' | 'authenticated' | 'nested';
export type PageKind =
  | 'inherited'
  | 'protected'
  | 'merged'
  | 'allow-before-deny'
  | 'everyone'
  | 'authenticated'
  | 'not-for-reading'
  | 'empty-dacl'
  | 'null-dacl';

export interface OracleFolder {
  /** Share-relative path of the folder that holds `.wiki/`. */
  path: string;
  kind: FolderKind;
}

export interface OraclePage {
  /** Share-relative path. */
  path: string;
  folder: string;
  kind: PageKind;
}

export interface OracleFixture {
  share: string;
  /** The scratch folder in the share root that holds everything. */
  root: string;
  /** A word every page contains and no other page on the testbed. */
  word: string;
  folders: OracleFolder[];
  pages: OraclePage[];
}

/** One security-descriptor change: a whole SDDL, or explicit entries put in front of the current (inherited) ones. */
type AclChange = { path: string; sddl: string } | { path: string; prepend: string };

const SET_NTACL = `
import json, sys
from samba.param import LoadParm
from samba.ntacls import setntacl, getntacl
from samba.auth_util import system_session_unix
from samba.netcmd.ntacl import get_local_domain_sid
job = json.load(sys.stdin)
lp = LoadParm()
lp.load(job['conf'])
domain_sid = str(get_local_domain_sid(lp))
ntvfs = 'smb' in lp.get('server services')
for change in job['changes']:
    sddl = change.get('sddl')
    if sddl is None:
        current = getntacl(lp, change['path'], system_session_unix(), direct_db_access=False, service=job['service']).as_sddl()
        at = current.index('D:', current.index('G:') + 2) + 2
        cut = current.find('(', at)
        cut = len(current) if cut < 0 else cut
        flags = current[at:cut] if 'AI' in current[at:cut] else current[at:cut] + 'AI'
        sddl = current[:at] + flags + change['prepend'] + current[cut:]
    setntacl(lp, change['path'], sddl, domain_sid, system_session_unix(), use_ntvfs=ntvfs, service=job['service'])
`;

/** The system Python: Samba's modules are installed for it, not for whatever `python3` comes first on PATH. */
const SYSTEM_PYTHON = '/usr/bin/python3';

async function applyAcls(env: TestbedEnv, share: string, changes: AclChange[]): Promise<void> {
  if (changes.length === 0) return;
  const local = env.smb.shares.find((s) => s.name === share)!.path;
  const job = { conf: env.samba.conf, service: share, changes: changes.map((c) => ({ ...c, path: path.join(local, c.path) })) };
  const child = run(SYSTEM_PYTHON, ['-c', SET_NTACL], { maxBuffer: 1 << 20 });
  child.child.stdin!.end(JSON.stringify(job));
  await child;
}

function ace(type: 'A' | 'D', flags: string, mask: number, sid: string): string {
  return `(${type};${flags};0x${mask.toString(16)};;;${sid})`;
}

const FOLDER_KINDS: FolderKind[] = [
  'inherited', 'protected', 'protected', 'merged', 'deny-first', 'everyone', 'authenticated', 'protected', 'merged', 'deny-first',
  'protected', 'merged', 'deny-first', 'protected', 'nested', 'nested', 'nested', 'nested', 'deny-first', 'protected',
];
const OWN_PAGE_KINDS: PageKind[] = [
  'protected', 'merged', 'allow-before-deny', 'everyone', 'authenticated', 'not-for-reading', 'empty-dacl', 'null-dacl',
];
const PAGES_PER_FOLDER = 10;

/**
 * The heading every page of `folder` has, and what GET /wiki/suggest is asked to find them: the fixture's word and
 * the folder's number (`f03` of `f03-protected`), typed as far as the number. At most PAGES_PER_FOLDER pages answer.
 */
export function suggestionHeading(word: string, folder: string): string {
  return `${word} ${path.posix.basename(folder).split('-')[0]}`;
}

/**
 * Builds the fixture as the DC administrator: folders level by level (each gets its ACL before anything is created
 * in it, so children inherit as on a real server), then the pages, then the pages' own ACLs.
 */
export async function buildFixture(options: {
  env: TestbedEnv;
  admin: SmbShare;
  share: string;
  root: string;
  word: string;
  directory: OracleDirectory;
  indexerSid: string;
  next: () => number;
}): Promise<OracleFixture> {
  const { env, admin, share, root, word, directory, next } = options;
  const principals = [...directory.groups.map((g) => g.sid), ...directory.groups.map((g) => g.sid), ...directory.users.map((u) => u.sid)];
  const anyPrincipal = (): string => {
    const roll = next();
    if (roll < 0.04) return 'WD';
    if (roll < 0.08) return 'AU';
    if (roll < 0.1) return 'DU';
    return principals[Math.floor(next() * principals.length)]!;
  };
  const somePrincipal = (): string => principals[Math.floor(next() * principals.length)]!;
  const allows = (flags: string, count = 1 + Math.floor(next() * 3)) =>
    Array.from({ length: count }, () => ace('A', flags, next() < 0.6 ? Mask.read : Mask.modify, anyPrincipal()));
  const denies = (flags: string, count = Math.floor(next() * 3)) =>
    Array.from({ length: count }, () => ace('D', flags, next() < 0.8 ? Mask.read : Mask.writeOnly, somePrincipal()));
  // The class's editor may change every page whose own DACL does not deny them first: without one, a seed could
  // leave whole ACL kinds without a writer, and the oracle's edits (a save keeps the page's DACL) would not reach them.
  const editor = directory.users[Math.floor(next() * directory.users.length)]!;
  /** What every own DACL keeps: the administrators (cleanup), the indexer (it must read a page to index it), the editor. */
  const keep = (flags: string) =>
    ace('A', flags, Mask.full, 'BA') + ace('A', flags, Mask.read, options.indexerSid) + ace('A', flags, Mask.modify, editor.sid);
  // AI (auto-inherited), as Windows writes it: Samba then marks what children inherit with ID, as Windows does.
  const protectedSddl = (body: string, flags: string) => `O:BAG:DUD:PAI${body}${keep(flags)}`;

  const folders: OracleFolder[] = [];
  const changes: AclChange[] = [];
  const folderAcl = (folder: OracleFolder): void => {
    const oi = 'OICI';
    switch (folder.kind) {
      case 'inherited':
      case 'nested':
        return;
      case 'protected':
        changes.push({ path: folder.path, sddl: protectedSddl(denies(oi).join('') + allows(oi).join(''), oi) });
        return;
      case 'merged':
        changes.push({ path: folder.path, prepend: denies(oi, Math.floor(next() * 2)).join('') + allows(oi).join('') });
        return;
      case 'deny-first':
        changes.push({ path: folder.path, sddl: protectedSddl(denies(oi, 1 + Math.floor(next() * 2)).join('') + allows(oi).join('') + ace('A', oi, Mask.read, 'AU'), oi) });
        return;
      case 'everyone':
        changes.push({ path: folder.path, sddl: protectedSddl(ace('A', oi, Mask.read, 'WD'), oi) });
        return;
      case 'authenticated':
        changes.push({ path: folder.path, sddl: protectedSddl(ace('A', oi, Mask.read, 'AU'), oi) });
    }
  };

  await admin.mkdir(root);
  // Level 1: every folder but the nested ones, which go into earlier folders with an own ACL.
  FOLDER_KINDS.forEach((kind, i) => {
    if (kind !== 'nested') folders.push({ path: `${root}/f${String(i).padStart(2, '0')}-${kind}`, kind });
  });
  for (const folder of folders) await admin.mkdir(folder.path);
  folders.forEach(folderAcl);
  await applyAcls(env, share, changes.splice(0));
  const withOwnAcl = folders.filter((f) => f.kind !== 'inherited');
  FOLDER_KINDS.forEach((kind, i) => {
    if (kind !== 'nested') return;
    const parent = withOwnAcl[Math.floor(next() * withOwnAcl.length)]!;
    folders.push({ path: `${parent.path}/f${String(i).padStart(2, '0')}-nested`, kind });
  });
  for (const folder of folders.filter((f) => f.kind === 'nested')) await admin.mkdir(folder.path);
  // One nested folder gets a protected ACL of its own inside its inheriting parent.
  const ownNested = folders.find((f) => f.kind === 'nested')!;
  changes.push({ path: ownNested.path, sddl: protectedSddl(denies('OICI').join('') + allows('OICI').join(''), 'OICI') });
  await applyAcls(env, share, changes.splice(0));

  const pages: OraclePage[] = [];
  for (const folder of folders) {
    await admin.mkdir(`${folder.path}/.wiki`);
    for (let n = 0; n < PAGES_PER_FOLDER; n++) {
      const i = pages.length;
      const kind: PageKind = i % 2 === 0 ? 'inherited' : OWN_PAGE_KINDS[(i >> 1) % OWN_PAGE_KINDS.length]!;
      const page = `${folder.path}/.wiki/${n === 0 ? 'index' : `seite-${String(n).padStart(2, '0')}`}.md`;
      pages.push({ path: page, folder: folder.path, kind });
    }
  }
  await Promise.all(pages.map((page, i) => admin.writeFile(page.path, `# Seite ${i}\n\n## ${suggestionHeading(word, page.folder)}\n\n${word} ${page.kind} im Ordner ${page.folder}.\n`)));
  for (const page of pages) {
    switch (page.kind) {
      case 'inherited':
        break;
      case 'protected':
        changes.push({ path: page.path, sddl: protectedSddl(denies('').join('') + allows('').join(''), '') });
        break;
      case 'merged':
        changes.push({ path: page.path, prepend: allows('', 1 + Math.floor(next() * 2)).join('') });
        break;
      case 'allow-before-deny':
        changes.push({ path: page.path, sddl: protectedSddl(allows('', 1).join('') + denies('', 1).join('') + allows('').join(''), '') });
        break;
      case 'everyone':
        changes.push({ path: page.path, sddl: protectedSddl(denies('', Math.floor(next() * 2)).join('') + ace('A', '', Mask.read, 'WD'), '') });
        break;
      case 'authenticated':
        changes.push({ path: page.path, sddl: protectedSddl(ace('A', '', Mask.read, 'AU'), '') });
        break;
      case 'not-for-reading':
        // Inherit-only and write-only entries grant no read on the page itself.
        changes.push({ path: page.path, sddl: protectedSddl(ace('A', 'OICIIO', Mask.read, somePrincipal()) + ace('A', '', Mask.writeOnly, somePrincipal()) + allows('', 1).join(''), '') });
        break;
      case 'empty-dacl':
        changes.push({ path: page.path, sddl: 'O:BAG:DUD:P' });
        break;
      case 'null-dacl':
        changes.push({ path: page.path, sddl: 'O:BAG:DU' });
    }
  }
  await applyAcls(env, share, changes.splice(0));
  return { share, root, word, folders, pages };
}

/**
 * The write oracle's fixture: the common setups of a school's file server, built as identical trees in a scratch
 * folder of the `schule` share, one tree for each (side, user, operation) so that no operation sees what another
 * did. Every tree has the same protected root ACL; folders get their ACL before anything is created in them, so
 * that files inherit as on a real server; ACLs are written by the DC administrator with SmbShare.setSecurity.
 * Files of the hand-in folder are saved by their authors (a teacher's worksheet, a pupil's work), so that owner and
 * CREATOR OWNER entries are what a real save leaves.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AceFlags, AceType, FileAttributes, SdControl, type Ace, type SecurityDescriptor, type SmbShare } from '../../../../src/smb/index.js';
import { setFileAttributes } from '../../smb/testbed.js';
import type { TestbedEnv } from '../../../testbed/env.js';

/** The control bits that belong to the DACL: a DACL written back takes these along. */
const DACL_CONTROL_BITS =
  SdControl.DACL_PRESENT | SdControl.DACL_DEFAULTED | SdControl.DACL_AUTO_INHERIT_REQ | SdControl.DACL_AUTO_INHERITED | SdControl.DACL_PROTECTED;

/** Access masks as ACEs carry them. */
export const Mask = {
  read: 0x1200a9,
  /** Read and FILE_APPEND_DATA, without FILE_WRITE_DATA. */
  readAppend: 0x1200ad,
  /** Read and FILE_ADD_FILE (a folder's 0x2): pupils hand in. */
  readAddFile: 0x1200ab,
  /** FILE_ADD_FILE, FILE_READ_ATTRIBUTES and SYNCHRONIZE: drop a file without seeing the others. */
  addFileOnly: 0x100082,
  /** Read and FILE_DELETE_CHILD. */
  readDeleteChild: 0x1200e9,
  modify: 0x1301bf,
  /** Modify without DELETE. */
  modifyNoDelete: 0x1201bf,
  full: 0x1f01ff,
  /** FILE_WRITE_DATA, FILE_APPEND_DATA, FILE_WRITE_EA, FILE_WRITE_ATTRIBUTES. */
  write: 0x116,
  delete: 0x10000,
} as const;

const BUILTIN_ADMINISTRATORS = 'S-1-5-32-544';
const CREATOR_OWNER = 'S-1-3-0';
const OICI = AceFlags.OBJECT_INHERIT | AceFlags.CONTAINER_INHERIT;

export const allow = (sid: string, mask: number, flags = 0): Ace => ({ type: AceType.ACCESS_ALLOWED, flags, mask, sid });
const deny = (sid: string, mask: number, flags = 0): Ace => ({ type: AceType.ACCESS_DENIED, flags, mask, sid });

/** An own ACL: protected (nothing inherited), or explicit entries put in front of the inherited ones. */
type AclSpec = { protect: Ace[] } | { prepend: Ace[] };

export interface FixtureFile {
  /** Path below the tree root: `<folder>/<name>`. */
  path: string;
  /** What the file stands for, for the findings. */
  setup: string;
  acl?: AclSpec;
  /** Saved by this account (the owner then); otherwise by the DC administrator. */
  author?: 'ben' | 'carla';
  readonly?: boolean;
}

export interface FixtureFolder {
  name: string;
  setup: string;
  acl: AclSpec;
}

export interface Scenario {
  folders: FixtureFolder[];
  files: FixtureFile[];
}

/** The school's setups, with the testbed's SIDs. Every ACL lets the indexer read (the root's entries, or its own). */
export function scenario(env: TestbedEnv): Scenario {
  const group = (name: string): string => env.groups[name]!;
  const user = (name: string): string => env.users[name]!.sid;
  const [lehrer, schueler, verwaltung, mathe, domainUsers] = ['Lehrer', 'Schueler', 'Verwaltung', 'Lehrkräfte Mathe', 'Domain Users'].map(group) as [string, string, string, string, string];
  const folders: FixtureFolder[] = [
    {
      name: 'abgabe',
      setup: 'hand-in folder: pupils add files, CREATOR OWNER full on them, teachers full',
      acl: { prepend: [allow(lehrer, Mask.full, OICI), allow(schueler, Mask.readAddFile), allow(CREATOR_OWNER, Mask.full, AceFlags.OBJECT_INHERIT | AceFlags.INHERIT_ONLY)] },
    },
    {
      name: 'briefkasten',
      setup: 'drop box (protected): pupils add files without listing or reading, no CREATOR OWNER entry; teachers full',
      acl: { protect: [allow(lehrer, Mask.full, OICI), allow(schueler, Mask.addFileOnly)] },
    },
    { name: 'anhaengen', setup: 'teachers change, an append-only log', acl: { prepend: [allow(lehrer, Mask.modify, OICI)] } },
    { name: 'aendern', setup: 'teachers write without delete', acl: { prepend: [allow(lehrer, Mask.modifyNoDelete, OICI)] } },
    { name: 'loeschen', setup: 'teachers have FILE_DELETE_CHILD on the folder, nothing more', acl: { prepend: [allow(lehrer, Mask.readDeleteChild)] } },
    { name: 'sperren', setup: 'teachers and administration change, files with deny entries', acl: { prepend: [allow(lehrer, Mask.modify, OICI), allow(verwaltung, Mask.modify, OICI)] } },
    { name: 'vererbt', setup: 'maths teachers change: inherited, explicit and protected file ACLs', acl: { prepend: [allow(mathe, Mask.modify, OICI)] } },
    { name: 'geschuetzt', setup: 'protected folder: teachers change, nobody else reads', acl: { protect: [allow(lehrer, Mask.modify, OICI)] } },
    { name: 'ablage', setup: 'everyone changes (the sources of MOVE and COPY live here)', acl: { prepend: [allow(domainUsers, Mask.modify, OICI)] } },
  ];
  const files: FixtureFile[] = [
    { path: 'abgabe/arbeitsblatt.txt', setup: "a teacher's worksheet in the hand-in folder (ben's, pupils read)", author: 'ben' },
    { path: 'abgabe/abgabe-carla.txt', setup: "a pupil's hand-in (carla's, CREATOR OWNER full)", author: 'carla' },
    { path: 'briefkasten/eingang.txt', setup: 'a dropped file: inherited, teachers full' },
    { path: 'anhaengen/protokoll.log', setup: 'append-only: FILE_APPEND_DATA without FILE_WRITE_DATA', acl: { protect: [allow(domainUsers, Mask.readAppend)] } },
    { path: 'aendern/notizen.txt', setup: 'inherited write without delete' },
    { path: 'aendern/schreibgeschuetzt.txt', setup: 'read-only attribute, inherited write without delete', readonly: true },
    { path: 'loeschen/fremd.txt', setup: 'readers only; deletable through the folder\'s FILE_DELETE_CHILD', acl: { protect: [allow(domainUsers, Mask.read)] } },
    { path: 'loeschen/fremd-schreibbar.txt', setup: 'teachers write without delete; FILE_DELETE_CHILD on the folder', acl: { protect: [allow(lehrer, Mask.modifyNoDelete), allow(domainUsers, Mask.read)] } },
    { path: 'sperren/ohne-ben.txt', setup: 'explicit deny of writing for one user (ben)', acl: { prepend: [deny(user('ben'), Mask.write)] } },
    { path: 'sperren/nicht-loeschen.txt', setup: 'explicit deny of DELETE for a group (Lehrer)', acl: { prepend: [deny(lehrer, Mask.delete)] } },
    { path: 'sperren/verwaltung-gesperrt.txt', setup: 'explicit deny of writing and DELETE for a group (Verwaltung)', acl: { prepend: [deny(verwaltung, Mask.write | Mask.delete)] } },
    { path: 'vererbt/geerbt.txt', setup: 'inherited only' },
    { path: 'vererbt/explizit.txt', setup: 'explicit allow for a user (dora) on top of the inherited entries', acl: { prepend: [allow(user('dora'), Mask.modify)] } },
    { path: 'vererbt/geschuetzt.txt', setup: 'protected: ben changes, the others read', acl: { protect: [allow(user('ben'), Mask.modify), allow(domainUsers, Mask.read)] } },
    { path: 'geschuetzt/intern.txt', setup: 'inherited from the protected folder' },
    { path: 'ablage/tausch.txt', setup: 'inherited: everyone changes' },
  ];
  return { folders, files };
}

/** The tree root's protected ACL: administrators full, the indexer and Domain Users read. */
function rootAcl(env: TestbedEnv): AclSpec {
  return { protect: [allow(env.groups['Domain Users']!, Mask.read, OICI)] };
}

/** What every protected ACL keeps: the administrators (setup, cleanup) and the indexer (its passes see no errors). */
function keep(env: TestbedEnv, flags: number): Ace[] {
  return [allow(BUILTIN_ADMINISTRATORS, Mask.full, flags), allow(env.users[env.indexer.user]!.sid, Mask.read, flags)];
}

export async function setAcl(env: TestbedEnv, admin: SmbShare, path: string, acl: AclSpec, isFolder: boolean): Promise<void> {
  // Auto-inherited, as Windows writes it: what a folder passes on is marked inherited (ID) in its children.
  let sd: SecurityDescriptor;
  if ('protect' in acl) {
    const control = SdControl.DACL_PRESENT | SdControl.DACL_PROTECTED | SdControl.DACL_AUTO_INHERITED;
    sd = { revision: 1, control, owner: null, group: null, sacl: null, dacl: { revision: 2, aces: [...acl.protect, ...keep(env, isFolder ? OICI : 0)] } };
  } else {
    const current = await admin.getSecurity(path);
    const control = (current.control & DACL_CONTROL_BITS) | SdControl.DACL_AUTO_INHERITED;
    sd = { revision: 1, control, owner: null, group: null, sacl: null, dacl: { revision: 2, aces: [...acl.prepend, ...(current.dacl?.aces ?? [])] } };
  }
  await admin.setSecurity(path, sd);
}

/** The content a fixture file starts with: the same in every tree. */
export const initialContent = (path: string): string => `${path}\n`;

/** The source of a MOVE or COPY over `target` (a path below the tree root): its own file in `ablage/`. */
export function sourceOf(target: string): string {
  return `ablage/quelle-${target.replaceAll('/', '-')}`;
}

export interface Authors {
  admin: SmbShare;
  ben: SmbShare;
  carla: SmbShare;
}

/** Names the testbed's users, groups and the well-known SIDs of the fixture's ACLs in compared states; others stay SIDs. */
export function sidNamer(env: TestbedEnv): (sid: string) => string {
  const names = new Map([
    ...Object.entries(env.users).map(([n, u]) => [u.sid, n] as const),
    ...Object.entries(env.groups).map(([n, sid]) => [sid, n] as const),
    ['S-1-5-32-544', 'BA'],
    ['S-1-3-0', 'CREATOR OWNER'],
  ]);
  return (sid) => names.get(sid) ?? sid;
}

/**
 * Removes a scratch tree (`root`, a path of `share`) on the DC's disk: read-only files, deny entries and protected
 * DACLs may keep even the administrator from deleting it over SMB.
 */
export async function removeOnDisk(env: TestbedEnv, share: string, root: string): Promise<void> {
  await rm(path.join(env.smb.shares.find((s) => s.name === share)!.path, root), { recursive: true, force: true });
}

/** A tree root at `root` (a share path), with its protected ACL. */
export async function buildRoot(env: TestbedEnv, admin: SmbShare, root: string): Promise<void> {
  await admin.mkdir(root);
  await setAcl(env, admin, root, rootAcl(env), true);
}

/** `folder` below `root`, with its ACL before anything is created in it (so that its files inherit as on a real server). */
export async function buildFolder(env: TestbedEnv, admin: SmbShare, root: string, folder: FixtureFolder): Promise<void> {
  await admin.mkdir(`${root}/${folder.name}`);
  await setAcl(env, admin, `${root}/${folder.name}`, folder.acl, true);
}

/** `file` below `root`, saved by its author with `content`, then given its own ACL and attributes. */
export async function buildFile(env: TestbedEnv, as: Authors, root: string, file: FixtureFile, content = initialContent(file.path)): Promise<void> {
  const path = `${root}/${file.path}`;
  await as[file.author ?? 'admin'].writeFile(path, content);
  if (file.acl) await setAcl(env, as.admin, path, file.acl, false);
  if (file.readonly) await setFileAttributes(as.admin, path, FileAttributes.READONLY | FileAttributes.ARCHIVE);
}

/**
 * Builds one tree at `root` (a share path): the root with its protected ACL, the folders with theirs, the files
 * (and, with `sources`, a MOVE/COPY source for each file in `ablage/`), then the files' own ACLs and attributes.
 */
export async function buildTree(env: TestbedEnv, as: Authors, root: string, setups: Scenario, sources: boolean): Promise<void> {
  const { admin } = as;
  await buildRoot(env, admin, root);
  await Promise.all(setups.folders.map((folder) => buildFolder(env, admin, root, folder)));
  await Promise.all(setups.files.map((file) => buildFile(env, as, root, file)));
  if (sources) await Promise.all(setups.files.map((file) => admin.writeFile(`${root}/${sourceOf(file.path)}`, `Quelle für ${file.path}\n`)));
}

/**
 * The benchmark's wiki: `pages` Markdown pages of 1–20 KiB (log-uniform sizes) in `folders` folders, each with
 * a `.wiki/` of its own, written straight onto the DC's disk under `<share path>/<root>/`.
 *
 * ACLs: files written on the disk carry no NT ACL, and Samba would show a default one made from the Unix mode.
 * So the NT ACLs are made by Samba itself once per ACL kind: a template folder gets a protected, inheritable ACL
 * (smbcacls), and a folder and a page created in it over SMB inherit it. Their `security.NTACL` extended
 * attributes (what Samba's acl_xattr module stores) are then copied onto every seeded folder, `.wiki/` and page
 * of that kind with one `setfattr --restore`. Samba then reports, per folder, the ACL the folder would have had
 * if an administrator had set it and the pages had inherited it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { markdownPage } from '../../test/integration/reconcile/markdown.js';
import { shareAs } from '../../test/integration/reconcile/support.js';
import { readTestbedEnv, type TestbedEnv } from '../../test/testbed/env.js';

export interface SeedOptions {
  env: TestbedEnv;
  /** The share as the DC administrator. */
  admin: SmbShare;
  share: string;
  root: string;
  folders: number;
  pages: number;
  /**
   * Folders an earlier call already seeded below `root` with as many pages per folder: this call's folders (and the
   * content of their pages) are numbered after them, so that a tree grows by appending (default 0).
   */
  from?: number;
}

export interface Seed {
  pages: number;
  folders: number;
  bytes: number;
  aclKinds: number;
}

const READ = '0x1200a9';
const FULL = '0x1f01ff';

/** The ACL kinds: which groups may read. The indexer may read all; Builtin Administrators have full control. */
function aclKinds(env: TestbedEnv): string[] {
  const groups = Object.entries(env.groups).filter(([name]) => name !== 'Domain Users').map(([, sid]) => sid);
  const indexer = env.users[env.indexer.user]!.sid;
  const kinds: string[][] = [[env.groups['Domain Users']!]];
  for (const group of groups) kinds.push([group]);
  for (let i = 0; i + 1 < groups.length; i++) kinds.push([groups[i]!, groups[i + 1]!]);
  return kinds.map((readers) => `D:P${[...readers, indexer].map((sid) => `(A;OICI;${READ};;;${sid})`).join('')}(A;OICI;${FULL};;;BA)`);
}

function smbcacls(env: TestbedEnv, share: string, path: string, args: string[]): void {
  execFileSync('smbcacls', ['-s', env.samba.conf, `//${env.smb.host}/${share}`, path, '-U', `${env.dc_admin.user}%${env.dc_admin.password}`, ...args]);
}

function ntAcl(file: string): string {
  const out = execFileSync('getfattr', ['--absolute-names', '-n', 'security.NTACL', '-e', 'base64', file], { encoding: 'utf8' });
  const match = /security\.NTACL=(0s\S+)/.exec(out);
  if (!match) throw new Error(`no security.NTACL on ${file}: ${out}`);
  return match[1]!;
}

/** Log-uniform between 1 and 20 KiB: most pages short, some long. */
export function pageSize(n: number): number {
  const u = ((n * 2654435761) % 1000) / 1000;
  return Math.round(1024 * 20 ** u);
}

/** What a benchmark that seeds `share` works with: the testbed, its Elasticsearch, and the share as the DC's admin. */
export async function seedClients(share: string): Promise<{ env: TestbedEnv; es: Client; smb: SmbClient; admin: SmbShare }> {
  const env = await readTestbedEnv();
  const es = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 300_000 });
  const smb = new SmbClient();
  return { env, es, smb, admin: shareAs(smb, env, env.dc_admin, share) };
}

export async function seedWiki(options: SeedOptions): Promise<Seed> {
  const { env, admin, share, root } = options;
  const disk = env.smb.shares.find((s) => s.name === share)!.path;
  const kinds = aclKinds(env);

  // One template per ACL kind, made by Samba: folder ACL set, then a folder and a page created below it.
  const templates = `${root}/.acl-templates`;
  const blobs: { folder: string; file: string }[] = [];
  for (const [k, sddl] of kinds.entries()) {
    const dir = `${templates}/t${k}`;
    await admin.mkdir(dir, { recursive: true });
    smbcacls(env, share, dir, ['--sddl', '--set', sddl]);
    // recursive: a call that appends finds the templates of the first.
    await admin.mkdir(`${dir}/folder`, { recursive: true });
    await admin.writeFile(`${dir}/folder/page.md`, '# template\n');
    blobs.push({ folder: ntAcl(join(disk, dir, 'folder')), file: ntAcl(join(disk, dir, 'folder', 'page.md')) });
  }

  const perFolder = Math.ceil(options.pages / options.folders);
  const from = options.from ?? 0;
  const dump: string[] = [];
  let bytes = 0;
  let written = 0;
  for (let f = from; f < from + options.folders; f++) {
    const folder = join(disk, root, `Schule-${String(Math.floor(f / 100)).padStart(2, '0')}`, `Klasse-${String(f).padStart(4, '0')}`);
    const wiki = join(folder, '.wiki');
    mkdirSync(wiki, { recursive: true });
    const blob = blobs[f % blobs.length]!;
    dump.push(`# file: ${folder}\nsecurity.NTACL=${blob.folder}\n`, `# file: ${wiki}\nsecurity.NTACL=${blob.folder}\n`);
    for (let p = 0; p < perFolder && written < options.pages; p++, written++) {
      const file = join(wiki, p === 0 ? 'index.md' : `seite-${p}.md`);
      const n = from * perFolder + written;
      const content = markdownPage(n, pageSize(n));
      writeFileSync(file, content);
      bytes += Buffer.byteLength(content);
      dump.push(`# file: ${file}\nsecurity.NTACL=${blob.file}\n`);
    }
  }
  const dumpFile = join(tmpdir(), `indexbench-ntacl-${process.pid}.txt`);
  writeFileSync(dumpFile, `${dump.join('\n')}\n`);
  try {
    execFileSync('setfattr', [`--restore=${dumpFile}`]);
  } finally {
    rmSync(dumpFile, { force: true });
  }
  return { pages: written, folders: options.folders, bytes, aclKinds: kinds.length };
}

/** Removes the seeded tree from the disk. */
export function removeSeed(env: TestbedEnv, share: string, root: string): void {
  rmSync(join(env.smb.shares.find((s) => s.name === share)!.path, root), { recursive: true, force: true });
}

/** Deletes the documents of the seeded pages below `root` (the test cluster has no `_delete_by_query`). */
export async function removeSeedDocuments(es: Client, root: string): Promise<void> {
  // No index yet (a testbed no service has run on): nothing to remove.
  if (!(await es.indices.exists({ index: DEFAULT_ALIAS }))) return;
  await es.indices.refresh({ index: DEFAULT_ALIAS });
  for (;;) {
    const { hits } = await es.search({ index: DEFAULT_ALIAS, size: 5000, _source: false, query: { prefix: { path: `${root}/` } } });
    if (hits.hits.length === 0) return;
    await es.bulk({ index: DEFAULT_ALIAS, refresh: true, operations: hits.hits.map((hit) => ({ delete: { _id: hit._id! } })) });
  }
}

// The import rule of docs/architecture.md holds for the source tree: the folders of src/, actors/ and supervisor/
// stand in the layers of its table (sub-folders where it ranks them) and each imports only folders of lower layers, an
// actor's protocol imports only types and others import only its types, and no module imports itself back through
// others.
// `node dist/test/run-tests.js import-rule` names every offending import, every folder without a layer and every
// cycle.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  cyclesOf,
  folderOf,
  foldersWithoutLayer,
  importsOf,
  isProtocol,
  loopThrough,
  moduleGraph,
  modulesUnder,
  parseLayers,
  rankOf,
  RULED_ROOTS,
  ruleViolations,
  type ModuleImport,
} from '../support/import-rule.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The layers and the imports of a tree: `repo` holds docs/architecture.md and the ruled folders. */
function readTree(repo: string) {
  const layers = parseLayers(readFileSync(join(repo, 'docs/architecture.md'), 'utf8'));
  const modules = modulesUnder(repo, RULED_ROOTS);
  const imports = modules.flatMap((module) => importsOf(repo, module));
  return { layers, modules, imports };
}

/** Each cycle of the graph as one loop through it. */
const loops = (edges: ReadonlyMap<string, readonly string[]>) => cyclesOf(edges).map((cycle) => loopThrough(edges, cycle));


describe('the import rule (docs/architecture.md)', () => {
  const { layers, modules, imports } = readTree(REPO);

  it('gives every folder of the tree a layer (a new folder: give it one), and names each folder once and only existing ones', () => {
    assert.deepEqual(foldersWithoutLayer(layers, modules), [], 'folders without a layer: give each a rank in the table');
    const named = layers.flatMap((layer) => layer.folders);
    assert.deepEqual(named.filter((f, i) => named.indexOf(f) !== i), [], 'folders named in two layers');
    const folders = new Set(modules.map((m) => folderOf(layers, m)!));
    const exists = (f: string) => f.endsWith('/*') ? [...folders].some((x) => x.startsWith(f.slice(0, -1))) : folders.has(f);
    assert.deepEqual(named.filter((f) => !exists(f)), [], 'layers naming no folder of the tree');
  });

  it('every import of src/, actors/ and supervisor/ goes to a lower layer', () => {
    assert.ok(imports.length > 500, `only ${imports.length} imports read`);
    assert.deepEqual(ruleViolations(layers, imports), []);
  });

  it('every actor has its protocol in actors/<kind>/protocol.ts, and a protocol imports types only', () => {
    const kinds = new Set(modules.filter((m) => /^actors\/[^/]+\/(main|task)\.ts$/.test(m)).map((m) => m.split('/')[1]));
    assert.deepEqual([...kinds].filter((kind) => !modules.includes(`actors/${kind}/protocol.ts`)), [], 'actors without a protocol.ts');
    const offending = imports.filter((i) => isProtocol(i.from) && !i.typeOnly);
    assert.deepEqual(offending.map((i) => `${i.from}:${i.line} imports ${i.to}`), []);
  });

  it('no module imports itself back (no import cycle in src/, actors/ or supervisor/)', () => {
    assert.deepEqual(loops(moduleGraph(imports)), []);
  });

  it('fails on a wrong import planted in the real tree: upward, within a layer, from an actor to another, a value of another actor\'s protocol, a protocol from src/, a sub-folder against its rank, into a folder without a layer', () => {
    const planted: ModuleImport[] = [
      { from: 'src/smb/client.ts', to: 'src/wiki/layout.ts', line: 1, typeOnly: true },
      { from: 'src/ldap/directory.ts', to: 'src/logon/smb-logons.ts', line: 2, typeOnly: false },
      { from: 'actors/dedupe/main.ts', to: 'actors/reconciler/main.ts', line: 3, typeOnly: false },
      { from: 'src/webdav/locks.ts', to: 'actors/kinds.ts', line: 4, typeOnly: true },
      { from: 'src/metrics/snapshot.ts', to: 'src/unranked/new.ts', line: 5, typeOnly: false },
      { from: 'actors/http-front/main.ts', to: 'actors/dav-state/protocol.ts', line: 6, typeOnly: false },
      { from: 'src/indexing/reconciler/reconciler.ts', to: 'src/indexing/indexer/bulk.ts', line: 7, typeOnly: false },
      { from: 'src/indexing/listing.ts', to: 'src/indexing/smb-reader/wiki-reads.ts', line: 8, typeOnly: true },
      { from: 'src/webdav/methods/service.ts', to: 'actors/dav-state/protocol.ts', line: 9, typeOnly: true },
      // Allowed: another actor's protocol, types only, from an actor.
      { from: 'actors/http-front/main.ts', to: 'actors/reconciler/protocol.ts', line: 10, typeOnly: true },
    ];
    assert.deepEqual(ruleViolations(layers, [...imports, ...planted]), [
      'src/smb/client.ts:1 imports src/wiki/layout.ts (src/smb in SMB client, actor runtime → src/wiki in the directory, SMB logons, the wiki\'s files)',
      'src/ldap/directory.ts:2 imports src/logon/smb-logons.ts (src/ldap in the directory, SMB logons, the wiki\'s files → src/logon in the directory, SMB logons, the wiki\'s files)',
      'actors/dedupe/main.ts:3 imports actors/reconciler/main.ts (actors/dedupe in threads → actors/reconciler in threads)',
      'src/webdav/locks.ts:4 imports actors/kinds.ts (src/webdav in what WebDAV\'s methods and the pipeline\'s stages are made of → actors/kinds.ts in actor kinds and their links)',
      'src/metrics/snapshot.ts:5 imports src/unranked/new.ts (src/metrics in operations: metrics, readiness, the admin channel, the API\'s description, doctor → src/unranked in no layer)',
      'actors/http-front/main.ts:6 imports actors/dav-state/protocol.ts (a value of another folder\'s protocol: import its types only)',
      'src/indexing/reconciler/reconciler.ts:7 imports src/indexing/indexer/bulk.ts (src/indexing/reconciler in services: the WebDAV methods, the index pipeline\'s stages, webhook intake → src/indexing/indexer in services: the WebDAV methods, the index pipeline\'s stages, webhook intake)',
      'src/indexing/listing.ts:8 imports src/indexing/smb-reader/wiki-reads.ts (src/indexing in what WebDAV\'s methods and the pipeline\'s stages are made of → src/indexing/smb-reader in services: the WebDAV methods, the index pipeline\'s stages, webhook intake)',
      'src/webdav/methods/service.ts:9 imports actors/dav-state/protocol.ts (src/webdav/methods in services: the WebDAV methods, the index pipeline\'s stages, webhook intake → actors/dav-state in threads)',
    ]);
    assert.deepEqual(foldersWithoutLayer(layers, [...modules, 'src/unranked/new.ts']), ['src/unranked']);
  });
});

describe('the import rule checks themselves', () => {
  const repo = mkdtempSync(join(tmpdir(), 'import-rule-'));
  after(() => rmSync(repo, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  write('docs/architecture.md', [
    '# x', '## Import rule', '| layer | folders |', '|---|---|',
    '| top | `actors/*` |', '| middle | `src/a`, `src/c` |', '| bottom | `src/b` |', '## Next', '| other | `src/b` |', '',
  ].join('\n'));
  write('src/a/one.ts', "import { two } from '../b/two.js';\nexport const one = two;\n");
  write('src/b/two.ts', "import type { one } from '../a/one.js';\nexport const two = 2;\nexport type One = typeof one;\n");
  write('src/c/three.ts', "import { one } from '../a/one.js';\nexport const three = one;\n");
  write('src/d/four.ts', "import { two } from '../b/two.js';\nexport const four = two;\n");
  write('actors/x/main.ts', "export * from '../../src/a/one.js';\nexport { type One } from '../../src/b/two.js';\nawait import('../y/main.js');\n");
  write('actors/y/main.ts', 'export {};\n');
  const { layers, modules, imports } = readTree(repo);

  it('reads the table of its own section only, top layer first, a `/*` name for each folder below', () => {
    assert.deepEqual(layers, [
      { name: 'top', folders: ['actors/*'] }, { name: 'middle', folders: ['src/a', 'src/c'] }, { name: 'bottom', folders: ['src/b'] },
    ]);
    assert.deepEqual(['actors/x', 'src/c', 'src/b', 'src/d'].map((f) => rankOf(layers, f)), [3, 2, 1, undefined]);
  });

  it('tells type-only imports from others, dynamic imports included', () => {
    const seen = imports.map((i: ModuleImport) => `${i.from}:${i.line} ${i.to}${i.typeOnly ? ' (type)' : ''}`);
    assert.deepEqual(seen, [
      'actors/x/main.ts:1 src/a/one.ts',
      'actors/x/main.ts:2 src/b/two.ts (type)',
      'actors/x/main.ts:3 actors/y/main.ts',
      'src/a/one.ts:1 src/b/two.ts',
      'src/b/two.ts:1 src/a/one.ts (type)',
      'src/c/three.ts:1 src/a/one.ts',
      'src/d/four.ts:1 src/b/two.ts',
    ]);
  });

  it('names each import to its own layer or above (type-only too), each folder without a layer, and each cycle', () => {
    assert.deepEqual(ruleViolations(layers, imports), [
      'actors/x/main.ts:3 imports actors/y/main.ts (actors/x in top → actors/y in top)',
      'src/b/two.ts:1 imports src/a/one.ts (src/b in bottom → src/a in middle)',
      'src/c/three.ts:1 imports src/a/one.ts (src/c in middle → src/a in middle)',
      'src/d/four.ts:1 imports src/b/two.ts (src/d in no layer → src/b in bottom)',
    ]);
    assert.deepEqual(foldersWithoutLayer(layers, modules), ['src/d']);
    assert.deepEqual(loops(moduleGraph(imports)), ['src/a/one.ts → src/b/two.ts → src/a/one.ts']);
    const folders = new Map([['src/a', ['src/c', 'src/b']], ['src/b', ['src/c']], ['src/c', ['src/a']], ['src/d', ['src/d']]]);
    assert.deepEqual(loops(folders), ['src/a → src/c → src/a', 'src/d → src/d']);
  });
});

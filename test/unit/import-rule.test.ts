// The import rule of docs/architecture.md holds for the source tree: each folder of src/, actors/ and
// supervisor/ imports only what its row of the rule table allows, src/messages/ imports only types, and no
// module imports itself back through others. `node dist/test/run-tests.js import-rule` names every offending
// import and every cycle.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  allowedFor,
  cyclesOf,
  folderOf,
  importsOf,
  loopThrough,
  moduleGraph,
  modulesUnder,
  parseImportRule,
  RULED_ROOTS,
  ruleGraph,
  ruleViolations,
  type ModuleImport,
} from '../support/import-rule.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The rule and the imports of a tree: `repo` holds docs/architecture.md and the ruled folders. */
function readTree(repo: string) {
  const rule = parseImportRule(readFileSync(join(repo, 'docs/architecture.md'), 'utf8'));
  const modules = modulesUnder(repo, RULED_ROOTS);
  const imports = modules.flatMap((module) => importsOf(repo, module));
  return { rule, modules, imports };
}

/** Each cycle of the graph as one loop through it. */
const loops = (edges: ReadonlyMap<string, readonly string[]>) => cyclesOf(edges).map((cycle) => loopThrough(edges, cycle));

describe('the import rule (docs/architecture.md)', () => {
  const { rule, modules, imports } = readTree(REPO);

  it('has a row for every folder, and every row names a folder of the tree', () => {
    const folders = new Set(modules.map((m) => folderOf(m)!));
    assert.deepEqual([...folders].filter((f) => allowedFor(rule, f) === undefined), [], 'folders without a row');
    const named = [...rule.keys(), ...[...rule.values()].flat()];
    const exists = (f: string) => f.endsWith('/*') ? [...folders].some((x) => x.startsWith(f.slice(0, -1))) : folders.has(f);
    assert.deepEqual([...new Set(named)].filter((f) => !exists(f)), [], 'rows naming no folder');
  });

  it('allows no loop between folders', () => {
    assert.deepEqual(loops(ruleGraph(rule)), []);
  });

  it('every import of src/, actors/ and supervisor/ is one its folder may make', () => {
    assert.ok(imports.length > 500, `only ${imports.length} imports read`);
    assert.deepEqual(ruleViolations(rule, imports), []);
  });

  it('src/messages/ imports types only', () => {
    const offending = imports.filter((i) => i.from.startsWith('src/messages/') && !i.typeOnly);
    assert.deepEqual(offending.map((i) => `${i.from}:${i.line} imports ${i.to}`), []);
  });

  it('no module imports itself back (no import cycle in src/, actors/ or supervisor/)', () => {
    assert.deepEqual(loops(moduleGraph(imports)), []);
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
    '# x', '## Import rule', '| folder | may import |', '|---|---|',
    '| `src/a` | `src/b` |', '| `src/b` | nothing |', '| `actors/*` | `src/a` |', '## Next', '| `src/b` | `src/a` |', '',
  ].join('\n'));
  write('src/a/one.ts', "import { two } from '../b/two.js';\nexport const one = two;\n");
  write('src/b/two.ts', "import type { one } from '../a/one.js';\nexport const two = 2;\nexport type One = typeof one;\n");
  write('actors/x/main.ts', "export * from '../../src/a/one.js';\nexport { type One } from '../../src/b/two.js';\nawait import('../y/main.js');\n");
  write('actors/y/main.ts', 'export {};\n');
  const { rule, imports } = readTree(repo);

  it('reads the table of its own section only, `/*` rows for each folder below', () => {
    assert.deepEqual([...rule], [['src/a', ['src/b']], ['src/b', []], ['actors/*', ['src/a']]]);
    assert.deepEqual(allowedFor(rule, 'actors/x'), ['src/a']);
  });

  it('tells type-only imports from others, dynamic imports included', () => {
    const seen = imports.map((i: ModuleImport) => `${i.from}:${i.line} ${i.to}${i.typeOnly ? ' (type)' : ''}`);
    assert.deepEqual(seen, [
      'actors/x/main.ts:1 src/a/one.ts',
      'actors/x/main.ts:2 src/b/two.ts (type)',
      'actors/x/main.ts:3 actors/y/main.ts',
      'src/a/one.ts:1 src/b/two.ts',
      'src/b/two.ts:1 src/a/one.ts (type)',
    ]);
  });

  it('names each import its folder may not make, and each cycle', () => {
    assert.deepEqual(ruleViolations(rule, imports), [
      'actors/x/main.ts:2 imports src/b/two.ts (actors/x → src/b)',
      'actors/x/main.ts:3 imports actors/y/main.ts (actors/x → actors/y)',
      'src/b/two.ts:1 imports src/a/one.ts (src/b → src/a)',
    ]);
    assert.deepEqual(loops(moduleGraph(imports)), ['src/a/one.ts → src/b/two.ts → src/a/one.ts']);
    const folders = new Map([['src/a', ['src/c', 'src/b']], ['src/b', ['src/c']], ['src/c', ['src/a']], ['src/d', ['src/d']]]);
    assert.deepEqual(loops(folders), ['src/a → src/c → src/a', 'src/d → src/d']);
  });
});

// The import rule of docs/architecture.md, checked against the source tree: every relative import and
// export-from of the .ts files under src/, actors/ and supervisor/ (read with the TypeScript parser), the
// folder each belongs to, the layers of the document's table, and the import cycles between modules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The trees the rule covers. */
export const RULED_ROOTS = ['src', 'actors', 'supervisor'];

export interface ModuleImport {
  /** Repo-relative paths of the importing and the imported module (`.ts`). */
  from: string;
  to: string;
  line: number;
  /** `import type`, `export type`, or only `type` names: erased from the JavaScript. */
  typeOnly: boolean;
}

/** Repo-relative paths of the .ts modules under `roots`, sorted. */
export function modulesUnder(repo: string, roots: readonly string[]): string[] {
  return roots
    .filter((root) => existsSync(join(repo, root)))
    .flatMap((root) => readdirSync(join(repo, root), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
      .map((e) => relative(repo, join(e.parentPath, e.name))))
    .sort();
}

/** An import as written: its specifier (relative or a package's), where, whether it is erased, and whether it is an `import()`. */
interface ImportSpecifier {
  specifier: string;
  line: number;
  typeOnly: boolean;
  dynamic: boolean;
}

/** Every import of one module: static imports, export-from and dynamic `import()`, relative or of a package. */
function specifiersOf(repo: string, module: string): ImportSpecifier[] {
  const source = ts.createSourceFile(module, readFileSync(join(repo, module), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: ImportSpecifier[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean, dynamic = false) => {
    if (specifier === undefined || !ts.isStringLiteral(specifier)) return;
    found.push({ specifier: specifier.text, line: source.getLineAndCharacterOfPosition(specifier.getStart()).line + 1, typeOnly, dynamic });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const onlyTypeNames = clause !== undefined && clause.name === undefined && named !== undefined
        && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, clause?.isTypeOnly === true || onlyTypeNames);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause;
      const onlyTypeNames = named !== undefined && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || onlyTypeNames);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The module a relative specifier of `module` names (`.ts`, repo-relative). */
const moduleAt = (repo: string, module: string, specifier: string) =>
  relative(repo, resolve(repo, dirname(module), specifier)).replace(/\.js$/, '.ts');

/** The relative imports of one module: static imports, export-from and dynamic `import()`. */
export function importsOf(repo: string, module: string): ModuleImport[] {
  return specifiersOf(repo, module)
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier, line, typeOnly }) => ({ from: module, to: moduleAt(repo, module, specifier), line, typeOnly }));
}

/**
 * What a thread whose entry module is `entry` loads, read from the source: every module reached by imports that
 * are not erased (an import whose names are all types but not marked so counts: the reading errs towards loading),
 * and every package they import, each with the chain of modules from the entry that imports it first. `atStart`
 * leaves out what only an `import()` reaches (what the thread loads when it needs it, not when it starts).
 */
export function loadedFrom(repo: string, entry: string, { atStart = false } = {}): { modules: string[]; packages: Map<string, string[]> } {
  const via = new Map<string, string[]>([[entry, [entry]]]);
  const packages = new Map<string, string[]>();
  const queue = [entry];
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    for (const { specifier, typeOnly, dynamic } of specifiersOf(repo, module)) {
      if (typeOnly || specifier.startsWith('node:') || (atStart && dynamic)) continue;
      const chain = via.get(module)!;
      if (!specifier.startsWith('.')) {
        const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
        if (!packages.has(name)) packages.set(name, chain);
        continue;
      }
      const to = moduleAt(repo, module, specifier);
      if (via.has(to)) continue;
      via.set(to, [...chain, to]);
      queue.push(to);
    }
  }
  return { modules: [...via.keys()], packages };
}

/**
 * The folder a module belongs to when no layer names a sub-folder of it: `src/<folder>` (a file directly in src/ or
 * actors/ is its own), `actors/<kind>`, `supervisor`; undefined outside the ruled trees.
 */
export function topFolderOf(module: string): string | undefined {
  const parts = module.split('/');
  if (parts[0] === 'src' || parts[0] === 'actors') return parts.length === 2 ? module : `${parts[0]}/${parts[1]}`;
  if (parts[0] === 'supervisor') return 'supervisor';
  return undefined;
}

/**
 * The folder a module belongs to, as the rule ranks it: the deepest of its folders that a layer names (a sub-folder
 * such as `src/indexing/reconciler` has a rank of its own where the table gives it one), else its top folder.
 */
export function folderOf(layers: Layers, module: string): string | undefined {
  const top = topFolderOf(module);
  if (top === undefined || top === module) return top;
  const parts = module.split('/');
  for (let depth = parts.length - 1; depth > top.split('/').length; depth--) {
    const folder = parts.slice(0, depth).join('/');
    if (rankOf(layers, folder) !== undefined) return folder;
  }
  return top;
}

/**
 * An actor's protocol (`actors/<kind>/protocol.ts`): the receiver owns it, it declares types
 * only, and the other threads' folders may import its types — a value import from outside its own folder breaks the rule.
 */
export function isProtocol(module: string): boolean {
  return /^actors\/[^/]+\/protocol\.ts$/.test(module);
}

/**
 * The layers of the rule, top first: each a name and its folders (`actors/*` stands for each folder under actors/).
 * A folder may import its own modules and those of the folders of lower layers, nothing of its own layer or above.
 */
export type Layers = readonly { readonly name: string; readonly folders: readonly string[] }[];

/**
 * The table under the heading `## Import rule` of the document, top layer first: one row per layer, its name in the
 * first cell and its folders in backticks in the second (rows without backticks there, the header, are skipped).
 */
export function parseLayers(markdown: string): Layers {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Import rule'));
  if (section === undefined) throw new Error('no "## Import rule" section');
  const layers: { name: string; folders: string[] }[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) continue;
    const [, name = '', cell = ''] = line.split('|');
    const folders = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    if (folders.length > 0) layers.push({ name: name.trim(), folders });
  }
  return layers;
}

/**
 * The rank of a folder, its layer counted from the bottom (1 is the lowest); undefined: no layer names it. A layer that
 * names the folder itself outranks one that names its parent's `/*` (a module directly under actors/ is not an actor).
 */
export function rankOf(layers: Layers, folder: string): number | undefined {
  let row = layers.findIndex(({ folders }) => folders.includes(folder));
  if (row === -1 && !folder.endsWith('.ts')) {
    const parentPattern = folder.replace(/\/[^/]+$/, '/*');
    row = layers.findIndex(({ folders }) => folders.includes(parentPattern));
  }
  return row === -1 ? undefined : layers.length - row;
}

/** The folders of some modules that no layer names: each needs a rank before its imports can be checked. */
export function foldersWithoutLayer(layers: Layers, modules: readonly string[]): string[] {
  return [...new Set(modules.map((m) => folderOf(layers, m)).filter((f) => f !== undefined))].filter((f) => rankOf(layers, f) === undefined).sort();
}

/**
 * Imports the layers do not allow, as `file:line imports target (folder in layer → folder in layer)`: to a folder
 * of the same layer or a higher one, or to or from a folder no layer names (type-only imports count: they tie the
 * folders' meanings all the same). The one exception is an actor's protocol (isProtocol): the other actors and the
 * supervisor may import its types, its values from its own folder only; src/ imports none of it (a feature declares
 * what it asks of an actor, and the protocol composes those declarations).
 */
export function ruleViolations(layers: Layers, imports: readonly ModuleImport[]): string[] {
  const named = (folder: string) => {
    const rank = rankOf(layers, folder);
    return rank === undefined ? `${folder} in no layer` : `${folder} in ${layers[layers.length - rank]!.name}`;
  };
  return imports.flatMap((imp) => {
    const from = folderOf(layers, imp.from);
    const to = folderOf(layers, imp.to) ?? imp.to;
    if (from === undefined || from === to) return [];
    if (isProtocol(imp.to) && from !== undefined && /^(actors|supervisor)(\/|$)/.test(from)) {
      return imp.typeOnly ? [] : [`${imp.from}:${imp.line} imports ${imp.to} (a value of another folder's protocol: import its types only)`];
    }
    const fromRank = rankOf(layers, from);
    const toRank = rankOf(layers, to);
    if (fromRank !== undefined && toRank !== undefined && toRank < fromRank) return [];
    return [`${imp.from}:${imp.line} imports ${imp.to} (${named(from)} → ${named(to)})`];
  });
}

/** Every cycle of the graph (its strongly connected parts of more than one node, or a node on itself), each sorted. */
export function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || edges.get(node)?.includes(node)) cycles.push(part.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** One loop through a cycle of cyclesOf, shortest from its first member: `a → b → c → a`. */
export function loopThrough(edges: ReadonlyMap<string, readonly string[]>, cycle: readonly string[]): string {
  const start = cycle[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of edges.get(node) ?? []) {
      if (!cycle.includes(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, node);
      if (target === start) queue.length = 0;
      else queue.push(target);
    }
  }
  const loop = [start];
  for (let node = cameFrom.get(start)!; node !== start; node = cameFrom.get(node)!) loop.unshift(node);
  return [start, ...loop].join(' → ');
}

/** The module graph of some imports: importing module → imported modules. */
export function moduleGraph(imports: readonly ModuleImport[]): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  return edges;
}

// The second step of `npm run build`, after tsc: one bundle per thread entry, with esbuild, into dist/threads/
// (where src/runtime/thread-bundles.ts finds them). The checkout and the Debian package run the same bundles.
//
//   node dist/packaging/thread-bundles.js
//
// A thread's entry is an actor's dist/actors/<kind>/main.js or a pool's dist/actors/<kind>/task.js. Its bundle holds
// the compiled modules and the packages it imports, except the packages below (EXTERNAL), which it loads from
// node_modules as before. Code that several entries import goes into chunks they share (dist/threads/chunks/), and
// code an entry imports only when it needs it (import(), e.g. the cluster stores of the small actors) into chunks of
// its own, loaded then, as before. Each bundle's source map leads back to the TypeScript, through tsc's own maps.
// Beside each pool's bundle goes the CommonJS loader that its threads load (poolTaskLoader says why).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { POOL_TASK_LOADER_EXTENSION, THREAD_BUNDLES_DIR, poolTaskLoader } from '../src/runtime/thread-bundles.js';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(PROJECT, 'dist');
const OUT = join(PROJECT, THREAD_BUNDLES_DIR);

/**
 * Packages that stay in node_modules: native addons (the uWebSockets.js builds), and packages that start threads
 * from files beside their own code (piscina's worker, pino's transports), which a bundle would not carry.
 */
const EXTERNAL = ['piscina', 'pino', '@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial'];

/**
 * CommonJS packages inside an ES module bundle still call require() for Node's built-in modules; esbuild's shim
 * uses the `require` in scope, which this line makes.
 */
const REQUIRE_IN_SCOPE = "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);";

/**
 * Why the bundles are minified (whitespace and syntax; names stay as written): V8 keeps a script's source for as long
 * as its code lives, one byte a character, or two for the whole script once one character is not Latin-1, which the
 * packages' comments always bring. Without MINIFY (and without the chunks), bench/memory/run.js measured the idle
 * service at 263.8 MiB instead of 245.5 before the bundles (its large objects 35 MiB more: the actors' sources);
 * minified, the bundles are ASCII but for a few regular expressions of markdown-it, and carry no comments.
 */
const MINIFY = { minifyWhitespace: true, minifySyntax: true } as const;

/** Names a bundle must not contain: CommonJS's own paths, which an ES module has not (a ReferenceError when run). */
const MODULE_PATH_NAMES = /\b__(dirname|filename)\b/;

function threadEntries(): string[] {
  const actors = join(DIST, 'actors');
  return readdirSync(actors, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap(({ name }) => ['main.js', 'task.js'].map((file) => join(actors, name, file)))
    .filter((file) => existsSync(file));
}

rmSync(OUT, { recursive: true, force: true });
const entryPoints = threadEntries();
const result = await build({
  entryPoints,
  outbase: DIST,
  outdir: OUT,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: EXTERNAL,
  banner: { js: REQUIRE_IN_SCOPE },
  // Class and function names as written: logs and error kinds name them.
  keepNames: true,
  ...MINIFY,
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
});
for (const output of Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'))) {
  const code = readFileSync(join(PROJECT, output), 'utf8');
  const found = MODULE_PATH_NAMES.exec(code);
  if (found) throw new Error(`${output} refers to ${found[0]}, which a bundled package cannot use: add the package to EXTERNAL in packaging/thread-bundles.ts`);
}
for (const entry of entryPoints.filter((file) => basename(file) === 'task.js')) {
  const bundle = join(OUT, relative(DIST, entry));
  writeFileSync(bundle.replace(/\.js$/, POOL_TASK_LOADER_EXTENSION), poolTaskLoader(basename(bundle)));
}
process.stdout.write(`thread bundles: ${entryPoints.map((file) => relative(DIST, file)).join(', ')} → ${relative(PROJECT, OUT)}/\n`);

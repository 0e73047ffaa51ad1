// The testbed's stand-in for the `german` analyzer of Elasticsearch's analysis-common module, which the Maven
// Central distribution lacks: the stable-API plugin in es-german-plugin/, compiled with the JDK against the API and
// Lucene jars of the node's own lib/ (the exact versions it loads, nothing downloaded), packed once per source
// change into .cache/ and installed into the install's plugins/ (README: Elasticsearch).
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exists } from './files.js';
import { cacheDir, layout, repoRoot } from './layout.js';
import { run } from './processes.js';
import { note } from './progress.js';

export const analysisPluginName = 'testbed-german-analysis';
const sourceDir = path.join(repoRoot, 'test', 'testbed', 'es-german-plugin');
const jarName = 'german-analysis.jar';
/** What the plugin's classes compile against: the stable plugin API and the Lucene analysis classes. */
const compileJars = (version: string, luceneVersion: string) => [
  `elasticsearch-plugin-api-${version}.jar`, `elasticsearch-plugin-analysis-api-${version}.jar`,
  `lucene-core-${luceneVersion}.jar`, `lucene-analysis-common-${luceneVersion}.jar`,
];

export interface AnalysisPluginTarget {
  /** The Elasticsearch install (ES_HOME). */
  esHome: string;
  /** Its version, which the plugin descriptor must name exactly. */
  version: string;
  /** The JDK the plugin CLI runs on. */
  javaHome: string;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)).sort();
}

/** The Lucene version of the install, from its lucene-core jar. */
async function luceneVersionOf(esHome: string): Promise<string> {
  const jar = (await readdir(path.join(esHome, 'lib'))).find((name) => /^lucene-core-[\d.]+\.jar$/.test(name));
  if (jar === undefined) throw new Error(`no lucene-core jar in ${esHome}/lib`);
  return jar.slice('lucene-core-'.length, -'.jar'.length);
}

/** The descriptor; its `version` is a hash of the sources, so an installed plugin shows which build it is. */
async function descriptorFor(target: AnalysisPluginTarget): Promise<string> {
  const hash = createHash('sha256').update(target.version);
  for (const file of await filesUnder(sourceDir)) hash.update(path.relative(sourceDir, file)).update(await readFile(file));
  return [
    `name=${analysisPluginName}`,
    'description=Testbed stand-in for the german analyzer of the analysis-common module (test/testbed/es-german-plugin)',
    `version=1.0-${hash.digest('hex').slice(0, 16)}`,
    `elasticsearch.version=${target.version}`,
    'java.version=17',
    '',
  ].join('\n');
}

/** Compiles and packs the plugin into `zipFile` (through a scratch dir, so a half-built zip never looks complete). */
async function build(target: AnalysisPluginTarget, descriptor: string, zipFile: string): Promise<void> {
  note(`building the analysis plugin ${analysisPluginName} from ${path.relative(repoRoot, sourceDir)}`);
  const scratch = path.join(layout.elasticsearch.dir, 'plugin-build');
  const classes = path.join(scratch, 'classes');
  const staged = path.join(scratch, 'zip');
  await rm(scratch, { recursive: true, force: true });
  await mkdir(classes, { recursive: true });
  await mkdir(staged, { recursive: true });
  const lib = path.join(target.esHome, 'lib');
  const classpath = compileJars(target.version, await luceneVersionOf(target.esHome)).map((jar) => path.join(lib, jar));
  const sources = (await filesUnder(path.join(sourceDir, 'src'))).filter((file) => file.endsWith('.java'));
  await run('javac', ['--release', '17', '-Xlint:all', '-Werror', '-cp', classpath.join(':'), '-d', classes, ...sources]);
  await run('jar', ['--create', '--file', path.join(staged, jarName), '-C', classes, '.']);
  await copyFile(path.join(sourceDir, 'named_components.json'), path.join(staged, 'named_components.json'));
  await writeFile(path.join(staged, 'stable-plugin-descriptor.properties'), descriptor);
  await mkdir(path.dirname(zipFile), { recursive: true });
  await run('jar', ['--create', '--no-manifest', '--file', path.join(scratch, 'plugin.zip'), '-C', staged, '.']);
  await rename(path.join(scratch, 'plugin.zip'), zipFile);
  await rm(scratch, { recursive: true, force: true });
}

/**
 * Builds the plugin unless this source's zip is cached and installs it unless the install has this very build.
 * Returns whether it installed now: a node already running must then be restarted to load it.
 */
export async function ensureAnalysisPlugin(target: AnalysisPluginTarget): Promise<boolean> {
  const descriptor = await descriptorFor(target);
  const installedDescriptor = path.join(target.esHome, 'plugins', analysisPluginName, 'stable-plugin-descriptor.properties');
  if ((await readFile(installedDescriptor, 'utf8').catch(() => null)) === descriptor) return false;
  const buildId = /^version=(.*)$/m.exec(descriptor)![1]!;
  const zipFile = path.join(cacheDir, `${analysisPluginName}-${buildId}.zip`);
  if (!(await exists(zipFile))) await build(target, descriptor, zipFile);
  const cli = path.join(target.esHome, 'bin', 'elasticsearch-plugin');
  const env = { ...process.env, ES_JAVA_HOME: target.javaHome };
  if (await exists(path.dirname(installedDescriptor))) await run(cli, ['remove', analysisPluginName], { env });
  note(`installing the analysis plugin ${analysisPluginName} ${buildId}`);
  await run(cli, ['install', '--batch', `file://${zipFile}`], { env, timeoutMs: 5 * 60_000 });
  return true;
}

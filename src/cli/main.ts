#!/usr/bin/env node
// `fileproxy <command>`: the service's command-line entry. It checks the Node.js version before it loads
// anything else, since on an older Node the service's modules fail with errors that do not say why.
const REQUIRED_MAJOR = 24;

const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  process.stderr.write(`fileproxy needs Node.js ${REQUIRED_MAJOR} or newer; this is Node.js ${process.version} (${process.execPath}).\n`
    + 'In a checkout, run it through npm (npm run demo) or with node_modules/.bin/node, the pinned runtime that npm ci installs; '
    + 'the Debian package brings its own.\n');
  process.exitCode = 1;
} else {
  const { runCommandLine } = await import('./commands.js');
  process.exitCode = await runCommandLine(process.argv.slice(2));
}

export {};

// The built command line (`fileproxy`) of this checkout, which tests and benchmarks run as a child process.
import { fileURLToPath } from 'node:url';

export const FILEPROXY_CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

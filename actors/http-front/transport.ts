// Which HTTP transport an http-front thread listens with (`http.transport`). node:http, the default, parses every
// WebDAV method, and several threads share its port through reusePort (Node >= 22.12). uWebSockets.js is an option
// where a build of it loads for the running Node (its builds are native code per Node ABI and glibc); it closes the
// connection on PROPFIND, MKCOL, LOCK and the other WebDAV methods it does not know.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';

export type Uws = typeof import('@trufflesuite/uws-js-unofficial');

export type HttpTransport = { name: 'node' } | { name: 'uws'; uws: Uws; build: string };

type UwsLoad = { uws: Uws; build: string } | { reasons: string[] };

const require = createRequire(import.meta.url);

/** One line of a load error (the builds' own messages run over several lines). */
function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n+\s*/g, ' ');
}

/**
 * The first uWebSockets.js build that loads for this Node: @btc-vision's (Node 20 to 25, glibc 2.38 or newer, so
 * Debian 13 and not 12), then @trufflesuite's (Node 16 to 20; a devDependency, for the tests and benchmarks that run
 * under the system's Node 20 on Debian 12). The latter's own entry falls back to a slow emulation on node:http when
 * its binary does not load; its binary is loaded directly so that never happens.
 */
export function loadUws(): UwsLoad {
  const reasons: string[] = [];
  try {
    return { uws: require('@btc-vision/uwebsockets.js') as Uws, build: '@btc-vision/uwebsockets.js' };
  } catch (err) {
    reasons.push(`@btc-vision/uwebsockets.js: ${oneLine(err)}`);
  }
  try {
    const dir = dirname(require.resolve('@trufflesuite/uws-js-unofficial/package.json'));
    const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
    return { uws: require(join(dir, 'binaries', binary)) as Uws, build: '@trufflesuite/uws-js-unofficial' };
  } catch (err) {
    reasons.push(`@trufflesuite/uws-js-unofficial: ${oneLine(err)}`);
  }
  return { reasons };
}

/** The transport `http.transport` asks for, or node:http with a warning saying why when no uWS build loads. */
export function chooseTransport(wanted: 'node' | 'uws', log: Logger): HttpTransport {
  if (wanted === 'node') return { name: 'node' };
  const loaded = loadUws();
  if ('reasons' in loaded) {
    log.warn({ node: process.version, reasons: loaded.reasons },
      'http.transport is uws, but no uWebSockets.js build loads on this Node: serving with node:http');
    return { name: 'node' };
  }
  log.warn({ build: loaded.build }, 'http.transport is uws: WebDAV serves only OPTIONS, GET, HEAD, PUT and DELETE');
  return { name: 'uws', ...loaded };
}

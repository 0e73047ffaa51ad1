// http.transport: node:http unless uws is asked for; uws only where a build of uWebSockets.js loads for the running
// Node, and otherwise node:http with a warning that names why (here, Node 24 on Debian 12: its glibc is too old).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { chooseTransport, loadUws } from '../../../actors/http-front/transport.js';

interface LogLine { level: number; msg: string; reasons?: string[]; build?: string }

function capturingLog() {
  const lines: LogLine[] = [];
  return { lines, log: pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } }) };
}

describe('http.transport', () => {
  it('is node:http, without a word, when node is asked for', () => {
    const { lines, log } = capturingLog();
    assert.deepEqual(chooseTransport('node', log), { name: 'node' });
    assert.deepEqual(lines, []);
  });

  it('is uws only when a build loads, else node:http with a warning naming each build and why it did not load', () => {
    const { lines, log } = capturingLog();
    const chosen = chooseTransport('uws', log);
    const loaded = loadUws();
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 40);
    if ('reasons' in loaded) {
      assert.deepEqual(chosen, { name: 'node' });
      assert.match(lines[0]!.msg, /no uWebSockets\.js build loads on this Node: serving with node:http/);
      assert.deepEqual(lines[0]!.reasons?.map((r) => r.split(':')[0]), ['@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial']);
    } else {
      assert.equal(chosen.name, 'uws');
      assert.match(lines[0]!.msg, /WebDAV serves only OPTIONS, GET, HEAD, PUT and DELETE/);
      assert.equal(lines[0]!.build, loaded.build);
    }
  });
});

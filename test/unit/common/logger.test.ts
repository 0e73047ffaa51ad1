// The buffered logger of the actor threads (src/common/logger.ts): lines wait for others to fill a write, but none
// waits long, and an idle one writes nothing. Run in a child process, whose standard output is the logger's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const LOGGER = fileURLToPath(new URL('../../../src/common/logger.js', import.meta.url));

/** Runs `body` (with `log`, a buffered logger) in a child; what it wrote to standard output, by arrival. */
function childOutput(body: string): Promise<{ chunks: { at: number; text: string }[] }> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)}; const log = createLogger(undefined, {}, { buffered: true }); ${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = performance.now();
  const chunks: { at: number; text: string }[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push({ at: performance.now() - started, text: d.toString() }));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve({ chunks }));
  });
}

describe('the buffered logger', () => {
  it('writes a few lines in one write, within a fraction of a second, though no more lines come', async () => {
    // Lines far below the size that makes a write; the process stays up 1.5 s, so only the periodic flush writes them.
    const { chunks } = await childOutput(`for (let i = 0; i < 3; i++) log.info({ i }, 'line'); setTimeout(() => {}, 1500);`);
    const text = chunks.map((c) => c.text).join('');
    assert.equal(text.trim().split('\n').length, 3);
    assert.equal(chunks.length, 1, 'one write for the three lines');
    assert.ok(chunks[0]!.at < 1200, `written after ${chunks[0]!.at.toFixed(0)} ms`);
  });

  it('writes each line once, in order, when many come', async () => {
    const { chunks } = await childOutput(`for (let i = 0; i < 2000; i++) log.info({ i }, 'line'); setTimeout(() => {}, 500);`);
    const lines = chunks.map((c) => c.text).join('').trim().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    assert.deepEqual(lines, Array.from({ length: 2000 }, (_, i) => i));
  });
});

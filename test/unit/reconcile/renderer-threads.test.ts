// Only the indexer threads render pages, so only they may load the renderer (markdown-it, src/wiki/document.ts):
// the reconciler and every smb-reader thread held about 1.4 MiB more heap each while they did (bench/RESULTS.md,
// "Which threads load markdown-it"). Read from the source: every module and package a thread's entry module loads.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadedFrom } from '../../support/import-rule.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** The chain of imports through which `entry` loads markdown-it, or undefined. */
const rendererChain = (entry: string) => loadedFrom(REPO, entry).packages.get('markdown-it')?.join(' → ');

it('the reconciler and the smb-reader threads do not load markdown-it', () => {
  assert.equal(rendererChain('actors/reconciler/main.ts'), undefined);
  assert.equal(rendererChain('actors/smb-reader/task.ts'), undefined);
});

it('the indexer threads, which render, do (the reading finds the renderer where it is loaded)', () => {
  assert.equal(rendererChain('actors/indexer/task.ts'), 'actors/indexer/task.ts → src/indexing/indexer/write-batch.ts → src/wiki/document.ts');
});

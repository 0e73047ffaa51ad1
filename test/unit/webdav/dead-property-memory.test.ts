// What the dead-property store counts against its budgets (max_user_size, max_total_size) must be what it takes
// in the heap: measured here for small and large properties, ASCII and not, short and deep paths. The heap is
// measured after a full collection; 10% of slack covers what earlier tests of the process leave behind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { element } from '../../../src/webdav/xml.js';
import { propertyStores } from '../../support/property-stores.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const newStore = propertyStores();

/** Heap bytes per counted byte of a store of `resources` resources with `perResource` properties each. */
async function heapPerCounted(resources: number, perResource: number, value: string, dir: string): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const store = await newStore();
  // Not one write to disk per patch: the store batches the patches made while a write is on its way.
  const saved: Promise<unknown>[] = [];
  for (let r = 0; r < resources; r++) {
    const patches = Array.from({ length: perResource }, (_, p) => ({ set: element('http://example.com/ns/', `property-${p}`, [`${value}${r}`]) }));
    saved.push(store.patch({ share: 'schule', path: `${dir}/Datei-${r}.docx` }, patches, `edu\\user${r % 50}`));
  }
  await Promise.all(saved);
  saved.length = 0;
  gc();
  const used = process.memoryUsage().heapUsed - before;
  const ratio = used / store.bytes;
  process.stdout.write(`# ${resources} resources x ${perResource} properties of ${value.length} chars: heap ${used} bytes, counted ${store.bytes}, ratio ${ratio.toFixed(2)}\n`);
  return ratio;
}

describe('dead-property memory', () => {
  const shapes: [string, number, number, string, string][] = [
    ['small ASCII properties', 20_000, 1, 'v', 'Klasse-5'],
    ['several small properties per resource', 5_000, 5, 'wert', 'Klasse-5'],
    ['large properties', 2_000, 1, 'x'.repeat(4000), 'Klasse-5'],
    ['non-Latin-1 values and a deep path', 10_000, 2, 'Grüße ✓ '.repeat(10), 'Fächer/Mathematik/Übungen/Woche-12'],
  ];
  for (const [name, resources, perResource, value, dir] of shapes) {
    it(`counts what it takes (not 10% less, nor 2.5 times more): ${name}`, async () => {
      const ratio = await heapPerCounted(resources, perResource, value, dir);
      assert.ok(ratio <= 1.1, `the heap takes ${ratio.toFixed(2)} times what is counted`);
      assert.ok(ratio >= 0.4, `the heap takes only ${ratio.toFixed(2)} times what is counted`);
    });
  }
});

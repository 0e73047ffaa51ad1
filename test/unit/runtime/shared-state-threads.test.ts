// A proxy alone (cluster.shared_state: none) loads no Elasticsearch client in the dedupe, webhook-store and dav-state
// threads: each loads what it shares state with by a dynamic import, only when the state is shared (a fifth of the
// CPU a start costs; docs/architecture.md, Several proxies). Read from the source:
// every module and package a thread's entry module loads when it starts (static imports; an `import()` when needed).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadedFrom } from '../../support/import-rule.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** The chain of imports through which `entry` loads the Elasticsearch client, or undefined. */
const clientChain = (entry: string, atStart: boolean) => loadedFrom(REPO, entry, { atStart }).packages.get('@elastic/elasticsearch')?.join(' → ');

it('the dedupe, webhook-store and dav-state threads load no Elasticsearch client when they start', () => {
  for (const kind of ['dedupe', 'webhook-store', 'dav-state']) assert.equal(clientChain(`actors/${kind}/main.ts`, true), undefined, kind);
});

it('they load it by the import() of their shared-state module (the reading sees what a start leaves out)', () => {
  assert.equal(clientChain('actors/dav-state/main.ts', false), 'actors/dav-state/main.ts → actors/dav-state/cluster-stores.ts → src/search/shared-state.ts');
});

it('the modules they load when the state is shared do (the reading finds the client where it is loaded)', () => {
  for (const module of ['actors/dedupe/shared-event-ids.ts', 'actors/webhook-store/shared-registry.ts', 'actors/dav-state/cluster-stores.ts']) {
    assert.match(clientChain(module, true) ?? '', /^actors\/.* → src\/search\/shared-state\.ts/, module);
  }
});

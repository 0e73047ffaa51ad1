// Mapping migration in the running service: its alias (this file's own, serviceIndex; `wiki-md` in a school) is made
// to point at an index built with an older mapping version; on start the reconciler rebuilds
// `<alias>-v<MAPPING_VERSION>` from a full walk of the shares and moves the alias atomically. Searches sent all the
// while never fail and never miss the page.
// The walk covers whatever other files running beside this one keep in the shares meanwhile (up to a burst of 5,000
// pages, which the service's change watch also sees coming and going), and the default pace slows it while the host
// is loaded, so the rebuild has minutes, not one, to switch the alias; the searches go on all that time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { indexMappings, indexSettings, MAPPING_VERSION } from '../../../src/search/mapping.js';
import { serviceIndex, startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { passAfter, reconcilerDetails, WikiClient, type Caller } from './wiki-service.js';
import { testSearchClient } from '../../support/es-indices.js';

const ADMIN: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
const OLD_INDEX = `${serviceIndex}-v0`;
/** How long the rebuild may take, on a host loaded by the files beside this one (ci20: over a minute at `balanced`). */
const SWITCH_WITHIN_MS = 300_000;
/** The rebuild's index: the first generation of this build's mapping. */
const NEW_INDEX = `${serviceIndex}-v${MAPPING_VERSION}`;

describe('wiki-md migration to a newer mapping while searches run', () => {
  let env: TestbedEnv;
  let client: Client;
  let service: RunningService | undefined;

  before(async () => {
    env = await readTestbedEnv();
    client = testSearchClient(env.es.url);
    // A service run first makes sure the current index exists and holds every page.
    const started = Date.now();
    const first = await startService();
    await passAfter(first, started).finally(() => first.stop());

    // Copy it into an index that claims mapping version 0, and point the alias there.
    const [current] = await new IndexManager({ client, alias: serviceIndex }).aliasTargets();
    assert.ok(current, `${serviceIndex} exists`);
    const { hits } = await client.search({ index: current, size: 10_000, query: { match_all: {} } });
    assert.ok(hits.hits.length >= 12);
    const mappings = { ...indexMappings('standard'), _meta: { mapping_version: 0, analyzer: 'standard' } };
    await client.indices.delete({ index: OLD_INDEX, ignore_unavailable: true });
    await client.indices.create({ index: OLD_INDEX, settings: indexSettings(), mappings });
    await client.bulk({ index: OLD_INDEX, refresh: true, operations: hits.hits.flatMap((hit) => [{ index: { _id: hit._id } }, hit._source!]) });
    await client.indices.updateAliases({ actions: [{ remove: { index: current, alias: serviceIndex } }, { add: { index: OLD_INDEX, alias: serviceIndex } }] });
    await client.indices.delete({ index: current });
  });
  after(async () => {
    await service?.stop();
    await client?.close();
  });

  it('rebuilds wiki-md-v<MAPPING_VERSION>, switches the alias and deletes the old index; every search meanwhile succeeds', async () => {
    service = await startService();
    const api = new WikiClient(service.url, env);
    const statuses = new Set<string>();
    let searches = 0;
    const deadline = Date.now() + SWITCH_WITHIN_MS;
    for (;;) {
      const details = await reconcilerDetails(service);
      statuses.add(details.status);
      const result = await api.search(ADMIN, { q: 'Pythagoras' });
      assert.deepEqual([result.degraded, result.total], [undefined, 1], `search ${searches} while ${details.status}`);
      searches++;
      if (details.status === 'ready' && !(await client.indices.exists({ index: OLD_INDEX }))) break;
      assert.ok(Date.now() < deadline, `no switch within ${SWITCH_WITHIN_MS / 1000} s (last: ${JSON.stringify(details)})`);
    }
    assert.ok(statuses.has('rebuilding'), `searches ran during the rebuild (saw ${[...statuses].join(', ')}; ${searches} searches)`);
    assert.deepEqual(Object.keys(await client.indices.getAlias({ name: serviceIndex })), [NEW_INDEX]);
    assert.equal((await reconcilerDetails(service)).index, NEW_INDEX);
  });
});

// The reconciler of the running service repairs drift between the shares and the index: pages written, changed,
// re-permissioned or deleted behind the service's back (straight over SMB as the DC administrator) show up
// correctly after the next pass. With Elasticsearch gone, search answers 200 with no hits and "degraded"; once it
// is back, what changed meanwhile arrives with the next pass. The service reaches Elasticsearch through a relay the
// test takes down (test/support/tcp-proxy.ts): the service sees a stopped node, the other files a running one.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { serviceIndex, startService, type RunningService } from '../../support/service.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import { runSambaClient, testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { removeTree } from '../smb/testbed.js';
import { eventually, passAfter, reconcilerDetails, WikiClient, type Caller } from './wiki-service.js';

const ANNA: Caller = { user: 'anna', groups: ['Lehrer'] };
const DORA: Caller = { user: 'dora', groups: ['Verwaltung'] };
/** Passes run every 2 s here; a change should be searchable within a few passes. */
const SOON_MS = 20_000;

describe('drift repair by the reconciler', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let esRelay: TcpProxy;
  let api: WikiClient;
  let smb: SmbClient;
  let admin: SmbShare;
  const scratch = `_wikidrift-${randomBytes(4).toString('hex')}`;
  const page = `${scratch}/.wiki/notizen.md`;
  const found = async (caller: Caller, word: string) => (await api.searchedPages(caller, { q: word })).join(',');

  before(async () => {
    env = await readTestbedEnv();
    smb = new SmbClient();
    admin = testbedShare(smb, env, env.dc_admin, 'schule');
    await admin.mkdir(`${scratch}/.wiki`, { recursive: true });
    const relayed = await TcpProxy.inFrontOf(env.es.url);
    esRelay = relayed.relay;
    const started = Date.now();
    service = await startService({ reconciler: { interval: '2s' }, elasticsearch: { url: relayed.url } });
    api = new WikiClient(service.url, env);
    await passAfter(service, started);
  });
  after(async () => {
    try {
      await removeTree(admin, scratch);
    } finally {
      await service?.stop();
      await esRelay?.down();
      await smb?.close();
    }
  });

  it('indexes a page written behind its back', async () => {
    // The folder inherits the share root's ACL: Domain Users read, Lehrer change.
    await admin.writeFile(page, '# Notizen\n\nDas Stichwort lautet Driftwortalpha.\n');
    await eventually(async () => assert.equal(await found(ANNA, 'Driftwortalpha'), `schule:${page}`), SOON_MS);
  });

  it('re-indexes a changed page: the new text is found, the old one no longer', async () => {
    await admin.writeFile(page, '# Notizen\n\nJetzt steht hier Driftwortbeta.\n');
    await eventually(async () => {
      assert.equal(await found(ANNA, 'Driftwortbeta'), `schule:${page}`);
      assert.equal(await found(ANNA, 'Driftwortalpha'), '');
    }, SOON_MS);
  });

  it('follows a changed ACL: who finds the page changes with it', async () => {
    const sids = { verwaltung: env.groups['Verwaltung']!, indexer: env.users['svc-indexer']!.sid };
    await runSambaClient('smbcacls', env, 'schule', env.dc_admin, [
      page, '-s', env.samba.conf, '--sddl', '--set', `D:P(A;;0x1200a9;;;${sids.verwaltung})(A;;0x1200a9;;;${sids.indexer})(A;;0x1f01ff;;;BA)`,
    ]);
    await eventually(async () => {
      assert.equal(await found(ANNA, 'Driftwortbeta'), '');
      assert.equal(await found(DORA, 'Driftwortbeta'), `schule:${page}`);
    }, SOON_MS);
  });

  it('removes a deleted page', async () => {
    await admin.unlink(page);
    await eventually(async () => assert.equal(await found(DORA, 'Driftwortbeta'), ''), SOON_MS);
  });

  it('answers degraded while Elasticsearch is down, and catches up once it is back', async () => {
    const outage = Date.now();
    await esRelay.down();
    try {
      assert.deepEqual(await api.search(ANNA, { q: 'Handys' }), { total: 0, hits: [], degraded: true });
      assert.deepEqual(await api.roots(ANNA), { roots: [], degraded: true });
      assert.deepEqual(await api.pages(ANNA, 'schule', ''), { total: 0, pages: [], degraded: true });
      await admin.writeFile(page, '# Notizen\n\nGeschrieben während des Ausfalls: Ausfallwortgamma.\n');
      const pass = await passAfter(service, outage);
      assert.match(pass.errors.join('\n'), new RegExp(`index ${serviceIndex}`));
      assert.equal(pass.indexed, 0);
    } finally {
      await esRelay.up();
    }
    await eventually(async () => assert.equal(await found(ANNA, 'Ausfallwortgamma'), `schule:${page}`), 60_000);
    await eventually(async () => {
      const details = await reconcilerDetails(service);
      assert.equal(details.status, 'ready');
      assert.deepEqual(details.lastPass?.errors, []);
    }, 30_000);
  });
});

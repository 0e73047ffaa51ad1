// The announcer's order of writes: a stop withdraws the announcement after a renewal under way, so that the renewal
// cannot write it again; a cluster that refuses is logged once until it accepts again.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { loadConfig } from '../../../src/config/index.js';
import { ANNOUNCE_EVERY_MS, ProxyAnnouncer } from '../../../src/doctor/proxy-announcement.js';
import { writeTempFile } from '../config/temp-config.js';

function config() {
  return loadConfig(writeTempFile(`smb:
  server: fs1
  domain: SCHULE
  shares: [{ name: schule }, { name: verwaltung, server: fs2 }]
  indexer_service_account: { user: svc-indexer }
ldap: { url: "ldaps://dc1", base_dn: "DC=schule,DC=local" }
admin: { user: fpadmin, groups: [Schul-Admins] }
http: { port: 8081 }
cluster: { shared_state: elasticsearch }
`)).config;
}

/** A client whose writes answer when `answer()` is called, recording what was done in order. */
function fakeClient(fail: () => boolean) {
  const done: string[] = [];
  const pending: (() => void)[] = [];
  const client = {
    indices: { exists: async () => true },
    index: (request: { document: { shares: string[]; shared_state: string } }) => new Promise<void>((resolve, reject) => {
      pending.push(() => {
        if (fail()) {
          reject(new Error('refused'));
          return;
        }
        done.push(`index ${request.document.shares.join(' ')} ${request.document.shared_state}`);
        resolve();
      });
    }),
    delete: async () => { done.push('delete'); },
  };
  return { client: client as unknown as Client, done, answer: () => pending.shift()?.() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ProxyAnnouncer', () => {
  it('announces its shares and settings, and withdraws only after the renewal under way', async () => {
    const { client, done, answer } = fakeClient(() => false);
    const announcer = new ProxyAnnouncer(client, config(), { info: () => undefined, warn: () => undefined });
    announcer.start();
    await tick();
    const stopped = announcer.stop();
    await tick();
    assert.deepEqual(done, [], 'nothing deleted while the renewal is under way');
    answer();
    await stopped;
    assert.deepEqual(done, ['index //fs1/schule //fs2/verwaltung elasticsearch', 'delete']);
  });

  it('logs a refused renewal once, and again when it succeeds', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let refusing = true;
      const { client, answer } = fakeClient(() => refusing);
      const logged: string[] = [];
      const announcer = new ProxyAnnouncer(client, config(), { info: (_, m) => logged.push(m), warn: (_, m) => logged.push(m) });
      const renewed = async () => {
        await tick();
        answer();
        await tick();
      };
      announcer.start();
      await renewed();
      mock.timers.tick(ANNOUNCE_EVERY_MS);
      await renewed();
      refusing = false;
      mock.timers.tick(ANNOUNCE_EVERY_MS);
      await renewed();
      assert.deepEqual(logged, [
        'proxy announcement not renewed; doctor cannot compare this proxy with the others of its shares',
        'proxy announcement renewed again',
      ]);
      await announcer.stop();
    } finally {
      mock.timers.reset();
    }
  });
});

// Doctor's comparison of the running proxies' announcements: which pairs of proxies of a share must agree on what,
// and what the lines say.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { disagreements, proxyAgreement } from '../../../src/doctor/proxy-agreement.js';
import type { ProxyAnnouncement } from '../../../src/doctor/proxy-announcement.js';

const SCHULE = '//fs1/schule';
const VERWALTUNG = '//fs1/verwaltung';

/** A proxy sharing its state with the defaults, serving `shares`. */
function proxy(name: string, shares: string[], settings: Partial<ProxyAnnouncement> = {}): ProxyAnnouncement {
  return {
    proxy: name, version: '1.2.0', shares, shared_state: 'elasticsearch', cluster_index_prefix: 'wiki-md-shared', event_ids: 'shared',
    dedupe_size: 100, seen_at: 0, ...settings,
  };
}

const settingsOf = (proxies: ProxyAnnouncement[]) => disagreements(proxies).map((d) => [d.setting, d.proxies.map((p) => p.proxy), d.shares]);

describe('proxies of the same shares', () => {
  it('agree when their settings are the same', () => {
    assert.deepEqual(settingsOf([proxy('a:8080', [SCHULE]), proxy('b:8080', [SCHULE, VERWALTUNG])]), []);
    const [line] = proxyAgreement([proxy('b:8080', [SCHULE]), proxy('a:8080', [SCHULE])]);
    assert.equal(line?.status, 'ok');
    assert.match(line!.detail, /^2 proxy\(ies\) seen in the last 2 minutes \(a:8080, b:8080\)/);
  });

  it('warn when one shares state and the other not, naming both and the share', () => {
    const proxies = [proxy('a:8080', [SCHULE, VERWALTUNG]), proxy('b:8080', [VERWALTUNG], { shared_state: 'none' })];
    assert.deepEqual(settingsOf(proxies), [['cluster.shared_state', ['a:8080', 'b:8080'], [VERWALTUNG]]]);
    const lines = proxyAgreement(proxies);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.status, 'warn');
    assert.equal(lines[0]!.detail, `cluster.shared_state differs: a:8080 (elasticsearch) and b:8080 (none) both serve ${VERWALTUNG}`);
    assert.match(lines[0]!.fix!, /cluster\.shared_state: elasticsearch on every proxy/);
  });

  it('warn on another prefix, event id check or dedupe window only while both share state', () => {
    const sharing = [proxy('a:1', [SCHULE]), proxy('b:1', [SCHULE], { cluster_index_prefix: 'other', event_ids: 'routed_by_key', dedupe_size: 50 })];
    assert.deepEqual(settingsOf(sharing).map(([setting]) => setting), ['cluster.index_prefix', 'cluster.event_ids', 'webhooks.dedupe_size']);
    const lines = proxyAgreement(sharing);
    assert.deepEqual(lines.map((l) => [l.status, l.detail]), [
      ['warn', `cluster.index_prefix differs: a:1 (wiki-md-shared) and b:1 (other) both serve ${SCHULE}`],
      ['warn', `cluster.event_ids differs: a:1 (shared) and b:1 (routed_by_key) both serve ${SCHULE}`],
      ['warn', `webhooks.dedupe_size differs: a:1 (100) and b:1 (50) both serve ${SCHULE}`],
    ]);
    // Two proxies keeping their own state have no shared prefix, check or window to disagree on.
    const alone = { shared_state: 'none' };
    assert.deepEqual(settingsOf([proxy('a:1', [SCHULE], alone), proxy('b:1', [SCHULE], { ...alone, cluster_index_prefix: 'other', event_ids: 'routed_by_key', dedupe_size: 50 })]), []);
  });

  it('warn on different versions', () => {
    assert.deepEqual(settingsOf([proxy('a:1', [SCHULE]), proxy('b:1', [SCHULE], { version: '1.3.0' })]), [['version', ['a:1', 'b:1'], [SCHULE]]]);
  });

  it('leave proxies of other shares alone, and compare share names as SMB does', () => {
    assert.deepEqual(settingsOf([proxy('a:1', [SCHULE]), proxy('b:1', [VERWALTUNG], { shared_state: 'none' })]), []);
    assert.deepEqual(settingsOf([proxy('a:1', ['//FS1/Schule']), proxy('b:1', [SCHULE], { shared_state: 'none' })]).length, 1);
  });

  it('list every disagreeing pair on the setting\'s one line', () => {
    const lines = proxyAgreement([proxy('a:1', [SCHULE]), proxy('b:1', [SCHULE]), proxy('c:1', [SCHULE], { shared_state: 'none' })]);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.detail, `cluster.shared_state differs: a:1 (elasticsearch) and c:1 (none) both serve ${SCHULE}; b:1 (elasticsearch) and c:1 (none) both serve ${SCHULE}`);
  });

  it('skip, saying why, when no proxy announced itself, and name announcements of another shape', () => {
    const [none] = proxyAgreement([], ['old:8080']);
    assert.equal(none?.status, 'skip');
    assert.match(none!.detail, /no proxy announced itself in the last 2 minutes .*1 announcement\(s\) of another shape left out \(old:8080/);
  });
});

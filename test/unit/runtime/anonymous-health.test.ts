// What /healthz may say to anyone: the texts in it lose addresses and the deployment's names, and keep the rest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRedactor, anonymousHealth } from '../../../src/runtime/health.js';

const NAMES = ['dc1.edu.test', 'EDU', 'edu.test', 'svc-indexer'];
const redact = addressRedactor(NAMES);

describe('addressRedactor', () => {
  const cases: [string, string][] = [
    ['SmbConnectionError: cannot connect to 127.0.0.1:45913: connect ECONNREFUSED 127.0.0.1:45913', 'SmbConnectionError: cannot connect to …: connect ECONNREFUSED …'],
    ['ConnectionError: connect ECONNREFUSED http://localhost:9200/_bulk', 'ConnectionError: connect ECONNREFUSED …'],
    ['no KDC answered: kdc.school.example:88 timed out', 'no KDC answered: … timed out'],
    ['connect ECONNREFUSED [::1]:445 and fe80::1', 'connect ECONNREFUSED … and …'],
    ['bind as svc-indexer@edu.test failed at dc1.edu.test', 'bind as …@… failed at …'],
    ['logon as EDU\\anna refused', 'logon as … refused'],
    ['cannot read /srv/shares/schule/.wiki/a.md', 'cannot read …'],
  ];
  for (const [text, expected] of cases) {
    it(`redacts ${JSON.stringify(text)}`, () => assert.equal(redact(text), expected));
  }

  it('keeps times, counts, codes and words that only contain a name', () => {
    for (const text of ['started 2026-11-29T02:40:00.000Z, took 00:01:05', 'ECONNREFUSED after 3 tries', 'edu-fileproxy is educational', 'share schule: 12 pages']) {
      assert.equal(redact(text), text);
    }
  });
});

describe('anonymousHealth', () => {
  it('redacts every text of the report, nested in details too, and keeps keys and numbers', () => {
    const report = anonymousHealth({
      status: 'degraded',
      actors: {
        reconciler: {
          state: 'running', kind: 'actor', restarts: 2, lastError: 'crashed talking to 10.0.0.5:445',
          details: { watch: { schule: { armed: false, events: 3, lastError: 'cannot connect to 127.0.0.1:445' } }, errors: ['dc1.edu.test down'] },
        },
      },
    }, redact);
    assert.deepEqual(report, {
      status: 'degraded',
      actors: {
        reconciler: {
          state: 'running', kind: 'actor', restarts: 2, lastError: 'crashed talking to …',
          details: { watch: { schule: { armed: false, events: 3, lastError: 'cannot connect to …' } }, errors: ['… down'] },
        },
      },
    });
  });
});

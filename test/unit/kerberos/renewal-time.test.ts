// When the client stops presenting a ticket and fetches the next (src/kerberos/client.ts renewalTime, isFresh): half
// its lifetime or five minutes before it ends, the lifetime counted from the ticket's start. A service ticket carries
// its TGT's authtime, which may be minutes older than the ticket. And when a failed renewal is tried again
// (renewalRetryDelay): before the ticket ends, however short it is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFresh, renewalRetryDelay, renewalTime } from '../../../src/kerberos/client.js';
import type { Credential } from '../../../src/kerberos/exchanges.js';

const now = Date.parse('2026-12-01T08:00:00Z');

/** A credential with only the times that matter here. */
function ticket(times: { authtime: number; starttime: number; endtime: number }): Credential {
  return {
    client: { type: 1, names: ['svc-indexer'] },
    crealm: 'EDU.TEST',
    ticket: { realm: 'EDU.TEST', sname: { type: 2, names: ['cifs', 'dc1.edu.test'] }, encPart: { etype: 18, cipher: Buffer.alloc(0) }, der: Buffer.alloc(0) },
    key: { etype: 18, value: Buffer.alloc(32) },
    flags: 0,
    authtime: new Date(times.authtime),
    starttime: new Date(times.starttime),
    endtime: new Date(times.endtime),
  };
}

describe('the renewal time of a ticket', () => {
  it('is half a short lifetime before the end, counted from the ticket\'s start, not its TGT\'s authtime', () => {
    // A 10 s service ticket had now with a TGT got a minute ago.
    const service = ticket({ authtime: now - 60_000, starttime: now, endtime: now + 10_000 });
    assert.equal(renewalTime(service), now + 5_000);
    assert.ok(isFresh(service, now + 4_999));
    assert.ok(!isFresh(service, now + 5_000));
  });

  it('is five minutes before the end of a long lifetime, and at least minLeftMs before it', () => {
    const long = ticket({ authtime: now, starttime: now, endtime: now + 10 * 3_600_000 });
    assert.equal(renewalTime(long), now + 10 * 3_600_000 - 300_000);
    assert.equal(renewalTime(long, 600_000), now + 10 * 3_600_000 - 600_000);
  });
});

describe('the wait before a failed renewal is tried again', () => {
  const service = ticket({ authtime: now, starttime: now, endtime: now + 3_600_000 });

  it('is ten seconds while the ticket has long to go', () => {
    assert.equal(renewalRetryDelay(service, now), 10_000);
  });

  it('is half of what is left when that is less, so the next try comes before the ticket ends', () => {
    // A session whose 16 s ticket failed to renew at its half-life had been tried again after it had ended.
    const short = ticket({ authtime: now, starttime: now, endtime: now + 16_000 });
    assert.equal(renewalRetryDelay(short, now + 8_000), 4_000);
    assert.ok(now + 8_000 + renewalRetryDelay(short, now + 8_000) < short.endtime.getTime());
  });

  it('never comes sooner than half a second, even at the ticket\'s end', () => {
    assert.equal(renewalRetryDelay(service, service.endtime.getTime() - 200), 500);
    assert.equal(renewalRetryDelay(service, service.endtime.getTime() + 60_000), 500);
  });
});

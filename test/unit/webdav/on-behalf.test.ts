// How a /dav/ request with X-Service-User is answered before and after the KDC (src/webdav/on-behalf.ts): the
// ldap-resolver's viewer answer (scripted here) becomes the named account or the wiki's refusal; the KDC's
// refusals and failures become 403 naming the reason, 503 or 502.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../src/http/http-error.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { DelegationRefusedError } from '../../../src/kerberos/s4u.js';
import { SmbError } from '../../../src/smb/index.js';
import { delegationHttpError, namedUser } from '../../../src/webdav/on-behalf.js';
import type { ViewerAnswer } from '../../../src/viewer/viewer.js';

const request = { user: 'portal', password: 'secret', serviceUserHeader: 'carla', clientAddress: '127.0.0.1' };
const seen = { ok: true as const, account: 'carla', userSid: 'S-1-5-21-1-2-3-1105', allowSids: [], denySids: [], shares: [] };
const answering = (answer: ViewerAnswer) => ({ resolve: async () => answer });

async function refusal(answer: ViewerAnswer, delegates = true): Promise<[number, string, Record<string, string>]> {
  try {
    await namedUser(answering(answer), request, delegates);
  } catch (err) {
    assert.ok(err instanceof HttpError);
    return [err.status, err.code, err.headers];
  }
  assert.fail('not refused');
}

describe('WebDAV on behalf of a user', () => {
  it('gives the named account when the rules allow it and delegation is configured', async () => {
    assert.equal(await namedUser(answering(seen), request, true), 'carla');
  });

  it('answers the wiki\'s refusals as the wiki does, with the DAV challenge on 401 and Retry-After on 429', async () => {
    assert.deepEqual(await refusal({ ok: false, status: 403, error: 'service_user_not_delegated', message: 'm' }), [403, 'service_user_not_delegated', {}]);
    assert.deepEqual(await refusal({ ok: false, status: 403, error: 'untrusted_caller', message: 'm' }), [403, 'untrusted_caller', {}]);
    const [status, , headers] = await refusal({ ok: false, status: 401, error: 'invalid_credentials', message: 'm' });
    assert.equal(status, 401);
    assert.match(headers['www-authenticate']!, /^Basic /);
    assert.deepEqual(await refusal({ ok: false, status: 429, error: 'too_many_failed_logins', message: 'm', retryAfterSeconds: 7 } as ViewerAnswer), [429, 'too_many_failed_logins', { 'retry-after': '7' }]);
  });

  it('refuses a user the directory does not know, and serves no one without delegation or without a directory', async () => {
    assert.deepEqual(await refusal({ ...seen, account: null, userSid: null, noAccess: 'user_unknown' }), [403, 'service_user_unknown', {}]);
    assert.deepEqual(await refusal(seen, false), [403, 'delegation_not_configured', {}]);
    assert.deepEqual(await refusal({ ...seen, account: null, userSid: null }), [403, 'delegation_not_configured', {}]);
  });

  it('names the KDC\'s refusal (also when it reaches the route inside an SMB error), no KDC answering, other failures', () => {
    const inside = (cause: Error) => new SmbError('STATUS_ERROR', 'Kerberos logon of carla', { cause });
    for (const reason of ['tgt_not_forwardable', 'user_not_delegable', 'service_not_allowed'] as const) {
      const answer = delegationHttpError(inside(new DelegationRefusedError(reason)));
      assert.deepEqual([answer?.status, answer?.code], [403, `delegation_${reason}`]);
    }
    const down = delegationHttpError(new SmbError('TIMEOUT', 'x', { cause: new KerberosError('KDC_UNREACHABLE', 'no KDC answered') }));
    assert.deepEqual([down?.status, down?.code], [503, 'kdc_unavailable']);
    const keytab = delegationHttpError(new KerberosError('KEYTAB', 'no key of svc-proxy'));
    assert.deepEqual([keytab?.status, keytab?.code], [502, 'delegation_failed']);
    assert.equal(delegationHttpError(new SmbError('ACCESS_DENIED', 'no')), undefined, 'the file server\'s own answers stay its own');
  });
});

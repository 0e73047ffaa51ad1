/**
 * The SMB security options against the testbed DC: smb.min_dialect, smb.require_encryption (checked with the
 * server's own view of the session, smbstatus) and the NTLM logon with a MIC.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Dialect, NtStatus, SmbClient, SmbPool, type SmbShare } from '../../../src/smb/index.js';
import { Connection } from '../../../src/smb/connection.js';
import { parseSessionSetupResponse, sessionSetupRequest } from '../../../src/smb/messages/session.js';
import { authenticateMessage, negotiateMessage, ntlmMic, parseChallenge } from '../../../src/smb/ntlm.js';
import { MECH_TYPES, negTokenInit, negTokenResp, parseNegTokenResp } from '../../../src/kerberos/spnego.js';
import { skipWithoutNtlm } from '../../support/smb-logons.js';
import { env, scratchName, shareFor } from './testbed.js';

interface SmbstatusSession {
  hostname: string;
  session_dialect: string;
  encryption: { cipher: string; degree: string };
  signing: { cipher: string; degree: string };
}

/** How smbd sees the session of the connection whose client side is `localPort`. */
function serverView(localPort: number): SmbstatusSession {
  const status = JSON.parse(execFileSync('smbstatus', ['-s', env.samba.conf, '-b', '--json'], { encoding: 'utf8' })) as {
    sessions: Record<string, SmbstatusSession>;
  };
  const mine = Object.values(status.sessions).filter((s) => s.hostname.endsWith(`:${localPort}`));
  assert.equal(mine.length, 1, `one session from port ${localPort}`);
  return mine[0]!;
}

/** Writes and reads back a scratch file, then returns the server's view of the share's connection. */
async function roundTrip(share: SmbShare): Promise<SmbstatusSession> {
  const name = `${scratchName()}.txt`;
  try {
    await share.writeFile(name, 'vertraulich');
    assert.equal((await share.readFile(name)).toString(), 'vertraulich');
    return serverView((await share.localPort())!);
  } finally {
    await share.unlink(name).catch(() => undefined);
  }
}

describe('SMB security options (signing required by the DC)', () => {
  const clients: SmbClient[] = [];
  const client = (options: ConstructorParameters<typeof SmbPool>[0]): SmbClient => {
    const c = new SmbClient(new SmbPool(options));
    clients.push(c);
    return c;
  };
  after(() => Promise.all(clients.map((c) => c.close())));

  test('min_dialect 3.1.1: the DC logs on with 3.1.1, signed', async () => {
    const view = await roundTrip(shareFor(client({ minDialect: '3.1.1' }), env.admin));
    assert.equal(view.session_dialect, 'SMB3_11');
    assert.equal(view.signing.degree, 'full');
  });

  test('require_encryption: the traffic on a share that does not demand it is encrypted (the server says so)', async () => {
    const plain = await roundTrip(shareFor(client({}), env.admin));
    assert.equal(plain.encryption.cipher, '-', 'control: without the option the schule share is not encrypted');
    const encrypted = await roundTrip(shareFor(client({ requireEncryption: true }), env.admin));
    assert.match(encrypted.encryption.cipher, /^AES-128-(GCM|CCM)$/);
    const withThree = await roundTrip(shareFor(client({ minDialect: '3.0', dialects: [Dialect.SMB300], requireEncryption: true }), env.admin));
    assert.equal(withThree.session_dialect, 'SMB3_00');
    assert.equal(withThree.encryption.cipher, 'AES-128-CCM');
  });

  test('require_encryption against a server that cannot encrypt (the DC limited to SMB 2.1) fails clearly before the logon', async () => {
    await assert.rejects(
      Connection.connect({ host: env.smb.host, port: env.smb.port, dialects: [Dialect.SMB210], requireEncryption: true }),
      { code: 'NOT_SUPPORTED', message: /negotiated SMB 2\.1 without encryption, but encryption is required/ },
    );
    const share = shareFor(client({ dialects: [Dialect.SMB210], requireEncryption: true }), env.admin);
    await assert.rejects(share.stat(''), { code: 'NOT_SUPPORTED' });
  });
});

/**
 * One NTLM logon by hand, the AUTHENTICATE message altered by `tamper` after its MIC was computed; returns the
 * server's final SPNEGO token. (Session.setup does the same, untampered.)
 */
async function logon(tamper: (authenticate: Buffer) => void): Promise<{ mechListMic: Buffer | null; expected: Buffer }> {
  const conn = await Connection.connect({ host: env.smb.host, port: env.smb.port });
  try {
    const negotiate = negotiateMessage();
    const r1 = await conn.request(sessionSetupRequest(negTokenInit(negotiate)), {}, [NtStatus.MORE_PROCESSING_REQUIRED]);
    const challenge = parseChallenge(parseNegTokenResp(parseSessionSetupResponse(r1.reader).securityBuffer).responseToken!);
    const creds = { domain: env.smb.domain, user: env.admin.user, password: env.admin.password };
    const auth = authenticateMessage(negotiate, challenge, creds);
    tamper(auth.message);
    const token = negTokenResp({ responseToken: auth.message, mechListMic: ntlmMic(auth.sessionKey, 'client-to-server', MECH_TYPES) });
    const r2 = await conn.request(sessionSetupRequest(token), { sessionId: r1.header.sessionId });
    const { mechListMic } = parseNegTokenResp(parseSessionSetupResponse(r2.reader).securityBuffer);
    return { mechListMic, expected: ntlmMic(auth.sessionKey, 'server-to-client', MECH_TYPES) };
  } finally {
    conn.close();
  }
}

describe('NTLM with a MIC against the DC', { skip: skipWithoutNtlm(env) }, () => {
  test('the logon succeeds and the DC answers with its own mechListMIC, which matches', async () => {
    const { mechListMic, expected } = await logon(() => undefined);
    assert.ok(mechListMic, 'the DC signs the mechanism list once the MIC is announced');
    assert.equal(mechListMic.toString('hex'), expected.toString('hex'));
  });

  test('the DC checks the MIC: one changed bit of it fails the logon', async () => {
    await assert.rejects(logon((m) => (m[72] ^= 1)), { code: 'INVALID_PARAMETER' });
  });
});

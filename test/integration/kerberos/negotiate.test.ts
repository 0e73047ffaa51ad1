// HTTP Negotiate (issue 29, flow 4) against the testbed DC: carla obtains a real ticket for HTTP/proxy.edu.test
// from the KDC (the project's Kerberos client, as a browser's or the Windows redirector's would be), and the
// service, with the delegation account's keytab, accepts it on /dav/ and the wiki endpoints. Over WebDAV it reaches
// SMB as carla by S4U2Proxy on that ticket (the file server refuses NTLM meanwhile), so carla gets what SMB as
// carla gets; the wiki shows her what her own password would. A token is accepted once, on whichever http-front
// thread it arrives. The client is the account of the SID in its ticket's PAC, whatever the ticket's name says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KerberosAcceptor, MAX_SKEW_SECONDS } from '../../../src/kerberos/acceptor.js';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { initiateContext, type InitiatorContext } from '../../../src/kerberos/gss.js';
import { parseKeytab } from '../../../src/kerberos/keytab.js';
import { ReplayCache } from '../../../src/kerberos/replay-cache.js';
import { KERBEROS_MECH_TYPES, NegState, negTokenInit, parseNegTokenResp } from '../../../src/kerberos/spnego.js';
import type { HealthReport } from '../../../src/runtime/health.js';
import { SmbClient, SmbError } from '../../../src/smb/index.js';
import { assertNamesNone, deploymentNames } from '../../support/anonymous-answers.js';
import { assertLogged, startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { dcAddress, realm } from '../../testbed/domain.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, fileServerSpn, kdcSettings, kerberosConfig, protectedUser, refuseNtlm, sensitiveUser } from '../../testbed/kerberos.js';
import { ScratchAccounts } from '../wiki/scratch-accounts.js';
import { WikiClient, passAfter, eventually } from '../wiki/wiki-service.js';

const FRONTS = ['http-front#1', 'http-front#2'];
const READABLE = 'Aushang.txt';
const DENIED = 'Lehrerzimmer/.wiki/index.md';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Runs a command with `input` on its stdin; resolves with its stdout, rejects with its stderr. */
function runWith(command: string, args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { env, timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${command}: ${stderr || err.message}`)) : resolve(stdout)));
    child.stdin!.end(input);
  });
}

/** One request on a connection of its own: only new connections are spread over the http-front threads. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP Negotiate on /dav/ and the wiki (Kerberos tickets for HTTP/proxy.edu.test)', () => {
  let env: TestbedEnv;
  let dir: string;
  let keytab: string;
  let service: RunningService;
  let carla: KerberosClient;
  let smb: SmbClient;
  let accounts: ScratchAccounts;

  /** A fresh AP-REQ from carla's ticket for the service, as the header value a client sends, and its context. */
  async function negotiate(): Promise<{ header: string; context: InitiatorContext }> {
    const context = initiateContext(await carla.serviceTicket(delegationAccount.spn));
    return { header: `Negotiate ${negTokenInit(context.token, KERBEROS_MECH_TYPES).toString('base64')}`, context };
  }

  async function servedPerFront(): Promise<number[]> {
    const report = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
    return FRONTS.map((name) => Number(report.actors[name]?.details?.['served']));
  }

  before(async () => {
    env = await readTestbedEnv();
    await ensureDelegationAccounts();
    dir = await mkdtemp(join(tmpdir(), 'negotiate-'));
    keytab = join(dir, 'proxy.keytab');
    // The account's keys and those of its HTTP/ principal in one file, as README says to export them.
    await exportKeytab(delegationAccount.user, keytab);
    await exportKeytab(delegationAccount.spn, keytab);
    const started = Date.now();
    service = await startService({
      kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: keytab, http_spn: delegationAccount.spn } },
      workers: { http_front: 2 },
    });
    carla = new KerberosClient(kdcSettings(), 'carla', { password: env.users['carla']!.password }, { forwardable: true });
    smb = new SmbClient();
    accounts = new ScratchAccounts(env);
    await passAfter(service, started);
  });
  after(async () => {
    await accounts?.removeAll();
    await refuseNtlm(false);
    await smb?.close();
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves carla\'s WebDAV requests as carla: what SMB as carla may read (200), not what it may not, without NTLM', async () => {
    const asCarla = testbedShare(smb, env, { user: 'carla', password: env.users['carla']!.password }, 'schule');
    const expected = await asCarla.readFile(READABLE);
    await assert.rejects(asCarla.readFile(DENIED), (e: unknown) => e instanceof SmbError && e.code === 'ACCESS_DENIED', 'the testbed denies carla the staff room');
    await refuseNtlm(true);
    try {
      const { header, context } = await negotiate();
      const ok = await send(`${service.url}/dav/schule/${READABLE}`, 'GET', { authorization: header });
      assert.equal(ok.status, 200, ok.body);
      assert.equal(ok.body, expected.toString('utf8'));
      // Mutual authentication: the AP-REP in the answer proves the service holds the HTTP/ key.
      const reply = parseNegTokenResp(Buffer.from(String(ok.headers['www-authenticate']).replace(/^Negotiate /, ''), 'base64'));
      assert.equal(reply.negState, NegState.ACCEPT_COMPLETED);
      context.complete(reply.responseToken!);

      const denied = await send(`${service.url}/dav/schule/${encodeURI(DENIED)}`, 'GET', { authorization: (await negotiate()).header });
      assert.equal(denied.status, 403, denied.body);
      assert.equal(JSON.parse(denied.body).error, 'access_denied');
    } finally {
      await refuseNtlm(false);
    }
  });

  it('finds for carla by her ticket what her password finds in the wiki', async () => {
    const api = new WikiClient(service.url, env);
    const caller = { user: 'carla', groups: ['Schueler'] };
    const request = { q: 'Schülerzeitung', size: 100 };
    let byPassword: string[] = [];
    await eventually(async () => {
      byPassword = await api.searchedPages(caller, request);
      assert.ok(byPassword.length > 0, 'the testbed has pages for pupils');
    });
    const res = await send(`${service.url}/wiki/search`, 'POST', { authorization: (await negotiate()).header, 'x-service-groups': 'Schueler', 'content-type': 'application/json' }, JSON.stringify(request));
    assert.equal(res.status, 200, res.body);
    const hits = (JSON.parse(res.body) as { hits: { share: string; path: string }[] }).hits.map((h) => `${h.share}:${h.path}`).sort();
    assert.deepEqual(hits, byPassword);
    assert.match(String(res.headers['www-authenticate']), /^Negotiate [A-Za-z0-9+/]+=*$/);
  });

  it('refuses a token sent again, on whichever http-front thread it arrives', async () => {
    const { header } = await negotiate();
    const first = await send(`${service.url}/dav/schule/${READABLE}`, 'GET', { authorization: header });
    assert.equal(first.status, 200, first.body);
    const start = await servedPerFront();
    for (let i = 0; i < 40; i++) {
      const again = await send(`${service.url}/${i % 2 ? 'wiki/roots' : `dav/schule/${READABLE}`}`, 'GET', { authorization: header });
      assert.equal(again.status, 401, again.body);
      assert.equal(JSON.parse(again.body).error, 'negotiate_replay');
      assert.match(String(again.headers['www-authenticate']), /^Negotiate, Basic realm=/);
      const now = await servedPerFront();
      if (i >= 4 && now.every((served, f) => served - start[f]! >= 2)) return;
    }
    assert.fail(`the replays did not reach both threads: ${JSON.stringify(await servedPerFront())}`);
  });

  it('answers 401 naming the reason for an NTLM token, a malformed token, a ticket for another service, and advertises Negotiate in its challenges; none names the deployment', async () => {
    const ntlm = Buffer.from('NTLMSSP\0\x01\0\0\0\x07\x82\x08\xa2', 'latin1').toString('base64');
    // carla's ticket for the file server, not for this service: the refusal used to name this service's principal.
    const elsewhere = `Negotiate ${negTokenInit(initiateContext(await carla.serviceTicket(fileServerSpn)).token, KERBEROS_MECH_TYPES).toString('base64')}`;
    const secret = deploymentNames(env, [delegationAccount.spn, delegationAccount.user, fileServerSpn, keytab, 'http_spn', 'exportkeytab']);
    for (const [path, method] of [[`dav/schule/${READABLE}`, 'GET'], ['wiki/roots', 'GET']] as const) {
      const url = `${service.url}/${path}`;
      const refusedNtlm = await send(url, method, { authorization: `Negotiate ${ntlm}` });
      assert.equal(refusedNtlm.status, 401, refusedNtlm.body);
      assert.deepEqual([JSON.parse(refusedNtlm.body).error, /NTLM/.test(JSON.parse(refusedNtlm.body).message)], ['negotiate_ntlm', true]);
      const malformed = await send(url, method, { authorization: 'Negotiate YWJj' });
      assert.equal(malformed.status, 401, malformed.body);
      assert.equal(JSON.parse(malformed.body).error, 'negotiate_malformed');
      const wrongService = await send(url, method, { authorization: elsewhere });
      assert.equal(wrongService.status, 401, wrongService.body);
      assert.equal(JSON.parse(wrongService.body).error, 'negotiate_ticket_invalid');
      const none = await send(url, method, {});
      assert.equal(none.status, 401, none.body);
      assert.match(String(none.headers['www-authenticate']), /^Negotiate, Basic realm="edu-fileproxy"/);
      for (const [what, answer] of Object.entries({ refusedNtlm, malformed, wrongService, none })) assertNamesNone(`${what} at ${path}`, answer, secret);
    }
    // The operator learns which principal the ticket was for, in the log.
    await assertLogged(service, new RegExp(`"detail":"the ticket is for ${fileServerSpn}@${realm}, this service is ${delegationAccount.spn}@${realm}"`, 'i'));
  });

  it('refuses, naming why, users the directory will not let be delegated (marked sensitive; in Protected Users, which Samba 4.17\'s KDC would delegate): 403, not a 5xx', async () => {
    const refusals = [
      { user: sensitiveUser, reason: /^Negotiate: sensibel is marked "sensitive and cannot be delegated"/ },
      { user: protectedUser, reason: /^Negotiate: geschuetzt is a member of Protected Users/ },
    ];
    for (const { user, reason } of refusals) {
      const holder = new KerberosClient(kdcSettings(), user.user, { password: user.password }, { forwardable: true });
      const token = initiateContext(await holder.serviceTicket(delegationAccount.spn)).token;
      const res = await send(`${service.url}/dav/schule/${READABLE}`, 'GET', { authorization: `Negotiate ${negTokenInit(token, KERBEROS_MECH_TYPES).toString('base64')}` });
      assert.equal(res.status, 403, res.body);
      assert.equal(JSON.parse(res.body).error, 'delegation_user_not_delegable');
      assert.match(JSON.parse(res.body).message, reason);
    }
  });

  it('serves MIT kinit + curl --negotiate as a client: the SPN from the URL\'s host name, the AP-REP checked by curl', async () => {
    // The testbed's names come from its own config: a krb5.conf for this test, and curl told where proxy.edu.test is.
    const krb5 = join(dir, 'krb5.conf');
    await writeFile(krb5, `[libdefaults]\n default_realm = ${realm}\n dns_lookup_kdc = false\n dns_lookup_realm = false\n rdns = false\n`
      + ` dns_canonicalize_hostname = false\n forwardable = true\n[realms]\n ${realm} = {\n  kdc = ${dcAddress}\n }\n`);
    const kenv = { ...process.env, KRB5_CONFIG: krb5, KRB5CCNAME: `FILE:${join(dir, 'ccache')}` };
    await runWith('kinit', ['-f', `carla@${realm}`], kenv, `${env.users['carla']!.password}\n`);
    const host = delegationAccount.spn.split('/')[1]!;
    const port = new URL(service.url).port;
    const out = await runWith('curl', [
      '--negotiate', '-u', ':', '--fail-with-body', '-sS', '--resolve', `${host}:${port}:127.0.0.1`, `http://${host}:${port}/dav/schule/${READABLE}`,
    ], kenv);
    const asCarla = testbedShare(smb, env, { user: 'carla', password: env.users['carla']!.password }, 'schule');
    assert.equal(out, (await asCarla.readFile(READABLE)).toString('utf8'));
  });

  it('reads carla\'s SID and groups from her ticket\'s PAC, its server signature verified with the HTTP/ key', async () => {
    const acceptor = new KerberosAcceptor({
      service: delegationAccount.spn, realm, keytab: parseKeytab(await readFile(keytab)), maxSkewSeconds: MAX_SKEW_SECONDS, replays: new ReplayCache(300_000, 100, 100),
    });
    const { pac } = await acceptor.accept(initiateContext(await carla.serviceTicket(delegationAccount.spn)).token);
    assert.equal(pac.userSid, env.users['carla']!.sid);
    assert.equal(pac.account, 'carla');
    for (const group of [...env.users['carla']!.groups, 'Domain Users']) assert.ok(pac.groupSids.includes(env.groups[group]!), `${group} is among ${pac.groupSids.join(', ')}`);
  });

  // On main at 3d1e805, which looked the ticket's name up in the directory, the ticket was refused with 401
  // negotiate_user_unknown. Over WebDAV the KDC decides: Samba 4.17 refuses S4U2Proxy on an evidence ticket whose
  // client name no longer exists (KDC_ERR_C_PRINCIPAL_UNKNOWN).
  it('knows a ticket obtained before its account was renamed as that account (by the PAC\'s SID), not as an unknown name', async () => {
    const name = `pac-${process.pid % 100_000}`;
    // No explicit UPN: after the rename, no principal of the old name is left in the directory.
    const user = await accounts.createUser(name, ['Schueler'], { userPrincipalName: null });
    const holder = new KerberosClient(kdcSettings(), name, { password: user.password });
    // The ticket is obtained before the rename and first presented after it: no cache of the service holds the account yet.
    const ticket = await holder.serviceTicket(delegationAccount.spn);
    await accounts.rename(name, `${name}-neu`);
    const url = `${service.url}/wiki/roots`;
    const byTicket = await send(url, 'GET', { authorization: `Negotiate ${negTokenInit(initiateContext(ticket).token, KERBEROS_MECH_TYPES).toString('base64')}` });
    assert.equal(byTicket.status, 200, byTicket.body);
    const byPassword = await send(url, 'GET', { authorization: `Basic ${Buffer.from(`${name}-neu:${user.password}`).toString('base64')}` });
    assert.equal(byPassword.status, 200, byPassword.body);
    assert.deepEqual(JSON.parse(byTicket.body), JSON.parse(byPassword.body), 'what the renamed account\'s own password shows');
  });

  it('reaches the file server\'s cifs/ SPN only through the delegation account (the ticket names carla)', async () => {
    // The service account's own ticket for the file server, for contrast: S4U2Proxy on carla's evidence names carla.
    const service = new KerberosClient(kdcSettings(), delegationAccount.user, { password: delegationAccount.password }, { forwardable: true });
    const presented = { evidence: await carla.serviceTicket(delegationAccount.spn), sid: env.users['carla']!.sid };
    const ticket = await service.onBehalfOf('carla', presented).serviceTicket(fileServerSpn);
    assert.deepEqual(ticket.client.names, ['carla']);
  });
});

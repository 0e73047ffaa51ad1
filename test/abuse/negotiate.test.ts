// Abuse of HTTP Negotiate (issue 29, flow 4) on /dav/ and the wiki endpoints: 10,000 malformed Negotiate tokens
// (and 10,000 in the warm-up) made from real ones — carla's AP-REQs for HTTP/proxy.edu.test, in SPNEGO and bare,
// each used once before the campaign — truncated, overwritten at random bytes and at length fields, replaced by
// noise, wrapped in SPNEGO with other mechanisms first, NTLM messages, bad base64, oversized tokens, and the real
// tokens sent again (replays). Every answer is 401 with a JSON error naming the problem (431 for a header section
// over Node's 16 KiB): none is a 2xx, none a 5xx.
import { join } from 'node:path';
import { KerberosClient } from '../../src/kerberos/client.js';
import { initiateContext } from '../../src/kerberos/gss.js';
import { KERBEROS_MECH_TYPES, MECH_TYPES, negTokenInit } from '../../src/kerberos/spnego.js';
import { readTestbedEnv } from '../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, kdcSettings, kerberosConfig } from '../testbed/kerberos.js';
import { mutate } from '../unit/smb/frames.js';
import { abuseSuite } from './support/campaign.js';
import { nastyString, type Dice } from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';
import { scratchDir } from '../support/scratch-dir.js';

/** Real tokens to mutate: made in prepare and each accepted once there, so that any of them sent again is a replay. */
const SEEDS = 12;
const TARGETS: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/dav/schule/Aushang.txt'], ['PROPFIND', '/dav/schule/'], ['PUT', '/dav/schule/abuse-negotiate.txt'],
  ['GET', '/wiki/roots'], ['POST', '/wiki/search'], ['GET', '/wiki/pages?share=schule&folder='],
];

// The service reads its keytab at start, before prepare: the account and its keys are made when this file loads.
await ensureDelegationAccounts();
const keytab = join(scratchDir('abuse-negotiate-'), 'proxy.keytab');
await exportKeytab(delegationAccount.user, keytab);
await exportKeytab(delegationAccount.spn, keytab);

function hostileToken(d: Dice, seeds: readonly Buffer[]): HeaderValue {
  const seed = d.pick(seeds);
  const rnd = () => d.int(1 << 30) / (1 << 30);
  const b64 = (b: Buffer) => `Negotiate ${b.toString('base64')}`;
  return d.oneOf<HeaderValue>([
    () => b64(mutate(seed, rnd)),
    () => b64(mutate(seed, rnd)),
    () => b64(mutate(seed, rnd)),
    () => b64(seed), // a replay
    () => b64(negTokenInit(mutate(seed, rnd), KERBEROS_MECH_TYPES)),
    () => b64(negTokenInit(Buffer.concat([Buffer.from('NTLMSSP\0', 'latin1'), d.bytes(d.int(60))]), MECH_TYPES)),
    () => b64(Buffer.concat([Buffer.from('NTLMSSP\0', 'latin1'), Buffer.from([1, 0, 0, 0]), d.bytes(d.int(40))])),
    () => b64(d.bytes(d.int(3_000))),
    () => b64(d.bytes(d.pick([9_000, 11_500, 49_000]))),
    // (printable only: header values Node's parser refuses are other suites' matter, see webdav.test.ts)
    () => `Negotiate ${nastyString(d).replace(/[^\x20-\x7e]/g, '')}`,
    () => d.pick(['Negotiate', 'Negotiate ', 'negotiate YII=', 'Negotiate ====', 'Negotiate YIIB', 'NEGOTIATE YA==', `Negotiate ${'A'.repeat(90_000)}`]),
  ]);
}

abuseSuite({
  name: 'HTTP Negotiate tokens',
  config: {
    kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: keytab, http_spn: delegationAccount.spn } },
    workers: { http_front: 2 },
  },
  async prepare(service) {
    const env = await readTestbedEnv();
    const carla = new KerberosClient(kdcSettings(), 'carla', { password: env.users['carla']!.password }, { forwardable: true });
    const ticket = await carla.serviceTicket(delegationAccount.spn);
    const seeds: Buffer[] = [];
    for (let i = 0; i < SEEDS; i++) {
      const token = initiateContext(ticket, new Date(Date.now() + i)).token;
      const wrapped = i % 3 === 0 ? token : negTokenInit(token, KERBEROS_MECH_TYPES);
      const res = await fetch(`${service.url}/wiki/roots`, { headers: { authorization: `Negotiate ${wrapped.toString('base64')}` } });
      if (res.status !== 200) throw new Error(`a real token was refused (${res.status}): ${await res.text()}`);
      seeds.push(wrapped);
    }
    return (d: Dice): RawRequest => {
      const [method, target] = d.pick(TARGETS);
      const body = method === 'POST' ? '{"q":"Schülerzeitung"}' : method === 'PUT' ? 'x' : '';
      return { method, target, headers: [['authorization', hostileToken(d, seeds)], ['content-type', 'application/json']], body };
    };
  },
  check(req, answer) {
    // Node's HTTP parser refuses a header section over 16 KiB (431) before any route sees it.
    const sent = req.headers.find(([name]) => name === 'authorization')?.[1] ?? '';
    if (answer.status === 431 && sent.length > 16_000) return undefined;
    if (answer.status !== 401) return `status ${answer.status} for a malformed, foreign or replayed Negotiate token (401 expected)`;
    if (!/^Negotiate, Basic /.test(answer.headers['www-authenticate'] ?? '')) return `401 without the Negotiate challenge: ${answer.headers['www-authenticate']}`;
    return undefined;
  },
});

// Floods that make the directory work (issue 27, items 4 and 5), each against its own service:
//  - random group names in X-Service-Groups from a logged-on user: the DC never sees more LDAPS connections at once
//    than the ldap-resolver's pool holds, however many unseen names arrive;
//  - X-Service-User from a trusted caller, with names of every length and script (200 emoji, 256 "ä"), unknown,
//    technical and real accounts: answers below 500, and the directory is never marked down (no directory error).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DEFAULT_SERVICE_CONNECTIONS } from '../../src/ldap/directory.js';
import { sampleDcConnections } from '../integration/ldap/dc-connections.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { ScratchAccounts } from '../integration/wiki/scratch-accounts.js';
import type { RunningService } from '../support/service.js';
import { parsePrometheusText, sampleValue } from '../unit/metrics/prometheus-text.js';
import { abuseSuite } from './support/campaign.js';
import { nastyString, type Dice } from './support/hostile-input.js';
import type { RawRequest } from './support/raw-http.js';

const metric = async (service: RunningService, name: string) => sampleValue(parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text()), name);

let sampler: ReturnType<typeof sampleDcConnections> | undefined;
/** The users whose logins the group-name flood sends: each may have one bind of its own open (logins are cached). */
const FLOOD_USERS = ['anna', 'ben', 'carla', 'dora'];

abuseSuite({
  name: 'random group-name floods',
  async prepare(service, env) {
    const users = FLOOD_USERS.map((name) => basicAuth(name, env.users[name]!.password));
    const groups = Object.keys(env.groups);
    sampler = sampleDcConnections(service.process.pid!, 50);
    return (d: Dice): RawRequest => {
      const names = Array.from({ length: d.pick([1, 3, 10, 100]) }, () => (d.chance(0.1) ? d.pick(groups) : `flood-${randomBytes(5).toString('hex')}`));
      const target = d.pick(['/wiki/roots', '/wiki/pages?share=schule']);
      return { method: 'GET', target, headers: [['authorization', d.pick(users)], ['x-service-groups', names.map(encodeURIComponent).join(',')]], body: '' };
    };
  },
  afterwards: {
    name: `never had more than ${DEFAULT_SERVICE_CONNECTIONS} lookup connections (+ one login bind per user) open at the DC`,
    async run(service) {
      const most = await sampler!.stop();
      const opened = await metric(service, 'fileproxy_ldap_service_connections_opened_total');
      console.log(`abuse: random group-name floods: at most ${most} DC connections open at once (ss); the resolver's pool opened ${opened} in all`);
      // Without the pool every request with an unseen name opened its own: up to one per client connection (24).
      assert.ok(most <= DEFAULT_SERVICE_CONNECTIONS + FLOOD_USERS.length, `${most} DC connections open at once`);
    },
  },
  async cleanup() {
    await sampler?.stop();
  },
});

const PORTAL = `ssofl${randomBytes(3).toString('hex')}-portal`;
let accounts: ScratchAccounts | undefined;

abuseSuite({
  name: 'X-Service-User floods from a trusted caller',
  config: { wiki: { trusted_callers: [PORTAL] } },
  async prepare(_service, env) {
    accounts = new ScratchAccounts(env);
    const portal = await accounts.createUser(PORTAL);
    const authorization = basicAuth(portal.name, portal.password);
    const real = Object.keys(env.users);
    return (d: Dice): RawRequest => {
      const user = d.oneOf([
        () => d.pick(real),
        () => `${d.pick(real)}@${env.smb.realm.toLowerCase()}`,
        () => d.pick(['\u{1F600}', 'ä', 'a', '\u{10FFFF}', '字']).repeat(d.pick([1, 128, 200, 255, 256, 257, 400])),
        () => `nobody-${d.int(100_000)}`,
        () => d.pick(['krbtgt', 'Administrator', 'Guest', env.indexer.user, PORTAL, 'DC1$']),
        () => nastyString(d).replace(/[\ud800-\udfff]/g, ''),
      ]);
      return {
        method: 'GET',
        target: d.pick(['/wiki/roots', '/wiki/pages?share=schule']),
        headers: [['authorization', authorization], ['x-service-user', encodeURIComponent(user)], ['x-service-groups', 'Lehrer']],
        body: '',
      };
    };
  },
  check(_req, answer) {
    return answer.status === 503 ? 'the directory was reported unavailable' : undefined;
  },
  afterwards: {
    name: 'never marked the directory down',
    async run(service) {
      assert.equal(await metric(service, 'fileproxy_directory_errors_total'), 0);
    },
  },
  async cleanup() {
    await accounts?.removeAll();
  },
});

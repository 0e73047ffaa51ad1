/**
 * The KDCs of a realm from DNS SRV records (RFC 4120 7.2.3.2), for a config that lists none: `_kerberos._tcp.<realm>`
 * (the realm in lower case), or `_kerberos._udp.<realm>` where a domain registered only those (a KDC answers TCP on
 * the same port). Asked of the configured DNS servers (the directory's own: the host's resolver may not know the
 * realm) or else the system's; the targets' addresses come from the same servers for the same reason. Ordered by
 * priority, then at random weighted by weight (RFC 2782), and kept for the records' TTL (a failed lookup for a
 * minute), shared by every client of the thread. node:dns cannot do this: its resolveSrv gives no TTL. dns-packet
 * reads and writes the messages; one UDP datagram each way, as RFC 1035 allows for answers this small.
 */
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { getServers } from 'node:dns';
import { isIP } from 'node:net';
import { decode, encode, RECURSION_DESIRED, type Answer, type DecodedPacket, type SrvData, type StringAnswer } from 'dns-packet';
import { KerberosError } from './errors.js';
import type { KdcAddress } from './transport.js';

/** A DNS server as IP address and port. */
export interface DnsServer {
  address: string;
  port: number;
}

/** How long a lookup that found no KDC is remembered before DNS is asked again. */
const NEGATIVE_TTL_SECONDS = 60;
const DNS_PORT = 53;
const RCODE_NOERROR = 0;
const RCODE_NXDOMAIN = 3;
const RCODE_NAMES: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 4: 'NOTIMP', 5: 'REFUSED' };

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address as a DnsServer (the address is checked by the config). */
export function parseDnsServer(text: string): DnsServer {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { address: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : DNS_PORT };
  if (isIP(text) === 6) return { address: text, port: DNS_PORT };
  const [address, port] = text.split(':');
  return { address: address!, port: port ? Number(port) : DNS_PORT };
}

/** The system's DNS servers (resolv.conf), as node:dns reads them. */
function systemServers(): DnsServer[] {
  return getServers().map(parseDnsServer);
}

/**
 * One question to one server; the answer must come from that server's address and port and carry the question's id
 * and name. The socket is connected to the server, so the kernel hands it no datagram from anyone else: a forged
 * answer naming another KDC must then come from the server's own address, not merely guess a 16-bit id.
 */
function ask(server: DnsServer, name: string, type: 'SRV' | 'A' | 'AAAA', timeoutMs: number): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.address) === 6 ? 'udp6' : 'udp4');
    const id = randomInt(0, 0x10000);
    const done = (error: Error | null, packet?: DecodedPacket): void => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(packet!);
    };
    const timer = setTimeout(() => done(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('message', (message) => {
      let packet: DecodedPacket;
      try {
        packet = decode(message);
      } catch {
        return; // not a DNS message: keep waiting for the real answer
      }
      if (packet.type !== 'response' || packet.id !== id || packet.questions?.[0]?.name.toLowerCase() !== name.toLowerCase()) return;
      // A server that cannot answer (SERVFAIL, REFUSED: not its zone and no forwarder) is passed over like a silent one.
      const rcode = (packet.flags ?? 0) & 0x0f;
      if (rcode !== RCODE_NOERROR && rcode !== RCODE_NXDOMAIN) done(new Error(`answered with ${RCODE_NAMES[rcode] ?? `error code ${rcode}`}`));
      else done(null, packet);
    });
    socket.connect(server.port, server.address, (err?: Error) => {
      if (err) done(err);
      else socket.send(encode({ type: 'query', id, flags: RECURSION_DESIRED, questions: [{ type, name }] }));
    });
  });
}

/** The first server's answer; a server that does not answer or fails is skipped. */
async function query(servers: readonly DnsServer[], name: string, type: 'SRV' | 'A' | 'AAAA', timeoutMs: number): Promise<DecodedPacket> {
  const failures: string[] = [];
  for (const server of servers) {
    try {
      return await ask(server, name, type, timeoutMs);
    } catch (err) {
      failures.push(`${server.address}:${server.port}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no DNS server answered for ${name} (${failures.join('; ') || 'none configured'})`);
}

/** RFC 2782: lowest priority first; within one priority, a weighted random order. */
export function orderSrv(records: readonly SrvData[], random: (below: number) => number = randomInt): SrvData[] {
  const ordered: SrvData[] = [];
  const priorities = [...new Set(records.map((r) => r.priority ?? 0))].sort((a, b) => a - b);
  for (const priority of priorities) {
    const left = records.filter((r) => (r.priority ?? 0) === priority);
    while (left.length > 0) {
      const total = left.reduce((sum, r) => sum + (r.weight ?? 0), 0);
      let pick = total === 0 ? 0 : random(total);
      const index = total === 0 ? 0 : left.findIndex((r) => (pick -= r.weight ?? 0) < 0);
      ordered.push(...left.splice(index, 1));
    }
  }
  return ordered;
}

const srvOf = (answers: readonly Answer[] | undefined, name: string) =>
  (answers ?? []).filter((a): a is Extract<Answer, { type: 'SRV' }> => a.type === 'SRV' && a.name.toLowerCase() === name.toLowerCase());

/** The addresses of `host` (an IP address stays as it is) with the shortest TTL among them. */
async function addressesOf(host: string, servers: readonly DnsServer[], timeoutMs: number, known: readonly Answer[]): Promise<{ addresses: string[]; ttl: number }> {
  if (isIP(host)) return { addresses: [host], ttl: Infinity };
  const matching = (answers: readonly Answer[] | undefined) =>
    (answers ?? []).filter((a) => (a.type === 'A' || a.type === 'AAAA') && a.name.toLowerCase() === host.toLowerCase()) as StringAnswer[];
  let records = matching(known);
  if (records.length === 0) {
    const [v4, v6] = await Promise.all((['A', 'AAAA'] as const).map((type) => query(servers, host, type, timeoutMs).catch(() => undefined)));
    records = [...matching(v4?.answers), ...matching(v6?.answers)];
  }
  return { addresses: records.map((r) => r.data), ttl: Math.min(...records.map((r) => r.ttl ?? 0)) };
}

/** Looks up the KDCs of `realm`: addresses in the order to try them, and how many seconds they hold. */
export async function lookUpKdcs(realm: string, servers: readonly DnsServer[], timeoutMs: number): Promise<{ kdcs: KdcAddress[]; ttl: number }> {
  const names = ['tcp', 'udp'].map((protocol) => `_kerberos._${protocol}.${realm.toLowerCase()}`);
  const asked = servers.length > 0 ? servers : systemServers();
  for (const name of names) {
    const packet = await query(asked, name, 'SRV', timeoutMs);
    const records = srvOf(packet.answers, name);
    // A single record with target "." says the service is decidedly not offered (RFC 2782).
    const offered = records.filter((r) => r.data.target !== '' && r.data.target !== '.');
    if (offered.length === 0) continue;
    const known = [...(packet.additionals ?? []), ...(packet.answers ?? [])];
    let ttl = Math.min(...offered.map((r) => r.ttl ?? 0));
    const kdcs: KdcAddress[] = [];
    for (const srv of orderSrv(offered.map((r) => r.data))) {
      const found = await addressesOf(srv.target.replace(/\.$/, ''), asked, timeoutMs, known);
      ttl = Math.min(ttl, found.ttl);
      kdcs.push(...found.addresses.map((host) => ({ host, port: srv.port })));
    }
    if (kdcs.length > 0) return { kdcs, ttl };
    throw new Error(`${name} names ${offered.map((r) => r.data.target).join(', ')}, but DNS has no address for ${offered.length > 1 ? 'them' : 'it'}`);
  }
  throw new Error(`DNS has no SRV record ${names.join(' or ')}`);
}

interface CacheEntry {
  until: number;
  result: Promise<KdcAddress[]>;
}

const cache = new Map<string, CacheEntry>();

/**
 * The KDCs of `realm` from DNS, cached for the records' TTL; concurrent callers share one lookup. A lookup that
 * finds none is a KDC_UNREACHABLE KerberosError saying what was asked, and is remembered for NEGATIVE_TTL_SECONDS.
 */
export function kdcsFromDns(realm: string, servers: readonly DnsServer[], timeoutMs: number, now: number = Date.now()): Promise<KdcAddress[]> {
  const key = `${realm.toLowerCase()} ${servers.map((s) => `${s.address}:${s.port}`).join(',')}`;
  const held = cache.get(key);
  if (held && held.until > now) return held.result;
  const entry: CacheEntry = { until: Infinity, result: Promise.resolve([]) };
  entry.result = lookUpKdcs(realm, servers, timeoutMs).then(
    ({ kdcs, ttl }) => {
      entry.until = now + ttl * 1000;
      return kdcs;
    },
    (err: Error) => {
      entry.until = now + NEGATIVE_TTL_SECONDS * 1000;
      const where = servers.length > 0 ? `kerberos.dns_servers ${servers.map((s) => `${s.address}:${s.port}`).join(', ')}` : 'the system\'s DNS servers';
      throw new KerberosError('KDC_UNREACHABLE', `no KDC for realm ${realm} from DNS (${where}): ${err.message}; list the KDCs in kerberos.kdcs, or point kerberos.dns_servers at the domain's DNS`);
    },
  );
  cache.set(key, entry);
  return entry.result;
}

// The Samba AD DC: provisioning into .testbed/samba, the share sections of its smb.conf, start/stop/status.
import { X509Certificate } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dcAddress, dcAdmin, dcDnsPort, dcHostName, netbiosDomain, realm } from './domain.js';
import { exists, fileTail } from './files.js';
import { layout } from './layout.js';
import {
  inOurNetwork, isPortOpen, listProcesses, recordedProcess, run, stopProcess, waitUntil,
  type ProcessInfo,
} from './processes.js';
import { note } from './progress.js';
import { sharePath, testbedShares } from './shares.js';

/** SMB and LDAPS must answer before the DC counts as up. */
const sambaPorts = [445, 636] as const;
// Every TCP port the DC binds on loopback; another server on one of them would make `samba` fail half-way.
const boundPorts = [88, 135, 139, 389, 445, 464, 636, 3268, 3269];
const sambaDaemons = new Set(['samba', 'smbd', 'nmbd', 'winbindd']);
const logFile = `${layout.samba.logDir}/log.samba`;
const systemRuntimeDir = '/run/samba';

export function runningSamba(): Promise<number | undefined> {
  // The master rewrites its command line to "samba: root process", so its name is what identifies it.
  return recordedProcess(layout.samba.pidFile, (info) => info.comm === 'samba');
}

/** The line of smb.conf that says the domain was provisioned with its DNS (older testbeds lack it: provisioned anew). */
const dnsPortLine = `dns port = ${dcDnsPort}`;

async function isProvisioned(): Promise<boolean> {
  const parts = [layout.samba.provisionedMarker, layout.samba.conf, layout.samba.samDb];
  if (!(await Promise.all(parts.map(exists))).every(Boolean)) return false;
  return (await readFile(layout.samba.conf, 'utf8')).includes(dnsPortLine);
}

/** Provisions the domain unless a complete provision exists; a half-finished one is removed first. */
export async function ensureProvisioned(): Promise<boolean> {
  if (await isProvisioned()) return false;
  if ((await runningSamba()) !== undefined) note(`incomplete provision: ${await stopSamba()}`);
  await rm(layout.samba.dir, { recursive: true, force: true });
  // The shares' NT ACLs name the SIDs of the old domain; a new domain starts from empty shares.
  await rm(layout.sharesDir, { recursive: true, force: true });
  await mkdir(layout.samba.dir, { recursive: true });
  await run('samba-tool', [
    // The internal DNS holds the records a DC registers (the KDC's SRV records among them), on loopback.
    'domain', 'provision', '--server-role=dc', '--dns-backend=SAMBA_INTERNAL', `--host-ip=${dcAddress}`, `--option=${dnsPortLine}`, `--realm=${realm}`,
    `--domain=${netbiosDomain}`, `--host-name=${dcHostName}`, `--adminpass=${dcAdmin.password}`,
    '--option=interfaces=lo', '--option=bind interfaces only=yes',
    `--option=pid directory=${layout.samba.pidDir}`, `--option=log file=${logFile}`,
    // No printing on a file server testbed; it only adds noise and spoolss processes.
    '--option=load printers=no', '--option=printcap name=/dev/null', '--option=disable spoolss=yes',
    `--targetdir=${layout.samba.dir}`,
    // Start from Samba's defaults, not from whatever the machine's /etc/samba/smb.conf holds.
    '--configfile=/dev/null',
  ]);
  await writeFile(layout.samba.provisionedMarker, `${new Date().toISOString()}\n`);
  return true;
}

const blockBegin = '# BEGIN testbed shares (managed by test/testbed/samba.ts)';
const blockEnd = '# END testbed shares';

function sharesBlock(): string {
  const sections = testbedShares.map((share) =>
    [
      `[${share.name}]`,
      `\tpath = ${sharePath(share.name)}`,
      '\tread only = no',
      // NT ACLs live in the security.NTACL xattr and alone decide access; the POSIX mode stays wide open.
      '\tvfs objects = dfs_samba4 acl_xattr',
      '\tacl_xattr:ignore system acls = yes',
      // Writes answered at once rather than after an interim STATUS_PENDING: rclone's SMB library (go-smb2), the
      // benchmarks' peer, refuses that interim answer on a signed session (servers never sign it, MS-SMB2 3.2.5.1.3),
      // so its writes failed with 405 under load. The service's client takes interim answers as the protocol says,
      // and its page writes go in compounds, which Samba answers at once anyway.
      '\taio write size = 0',
      ...(share.encrypt ? ['\tsmb encrypt = required'] : []),
    ].join('\n'),
  );
  return `${blockBegin}\n${sections.join('\n\n')}\n${blockEnd}\n`;
}

/** Writes the share sections into the DC's smb.conf; returns whether the file changed. */
export async function ensureShareConfig(): Promise<boolean> {
  const current = await readFile(layout.samba.conf, 'utf8');
  const start = current.indexOf(blockBegin);
  const end = current.indexOf(blockEnd);
  const base = start >= 0 && end > start ? current.slice(0, start) + current.slice(end + blockEnd.length + 1) : current;
  const wanted = `${base.trimEnd()}\n\n${sharesBlock()}`;
  for (const share of testbedShares) {
    await mkdir(sharePath(share.name), { recursive: true });
    await chmod(sharePath(share.name), 0o777);
  }
  if (wanted === current) return false;
  await writeFile(layout.samba.conf, wanted);
  return true;
}

/**
 * The DC's name in its DNS with its loopback address, which provisioning leaves out (it registers no loopback
 * address): the target of its SRV records. Added over the DNS management RPC, as `samba-tool dns add` does.
 */
export async function ensureDcAddressRecord(): Promise<boolean> {
  const zone = realm.toLowerCase();
  const tool = (...args: string[]) =>
    run('samba-tool', ['dns', ...args, '-U', `${dcAdmin.user}%${dcAdmin.password}`, '-s', layout.samba.conf], { allowFailure: true });
  if ((await tool('query', dcAddress, zone, dcHostName, 'A')).stdout.includes(dcAddress)) return false;
  const added = await tool('add', dcAddress, zone, dcHostName, 'A', dcAddress);
  if (added.code !== 0) throw new Error(`samba-tool dns add ${zone} ${dcHostName} A ${dcAddress}: ${added.stderr}`);
  return true;
}

export async function reloadSambaConfig(): Promise<void> {
  await run('smbcontrol', ['-s', layout.samba.conf, 'all', 'reload-config']);
}

function descendsFrom(info: ProcessInfo, ancestor: number, byPid: Map<number, ProcessInfo>): boolean {
  for (let current: ProcessInfo | undefined = info; current; current = byPid.get(current.ppid)) {
    if (current.pid === ancestor) return true;
    if (current.ppid <= 1) return false;
  }
  return false;
}

/** Refuses to start next to Samba daemons the testbed did not start (e.g. Debian's smbd/nmbd services). */
async function assertNoForeignSamba(ours: number | undefined): Promise<void> {
  const processes = await listProcesses();
  const byPid = new Map(processes.map((info) => [info.pid, info]));
  const foreign = processes.filter(
    (info) =>
      sambaDaemons.has(info.comm) &&
      inOurNetwork(info.pid) &&
      !(ours !== undefined && descendsFrom(info, ours, byPid)) &&
      !info.cmdline.includes(layout.samba.conf),
  );
  if (foreign.length > 0) {
    const list = foreign.map((info) => `pid ${info.pid} ${info.comm} (${info.cmdline})`).join('; ');
    throw new Error(
      `Samba daemons not started by the testbed are running: ${list}. Stop them (e.g. ` +
        '`systemctl stop smbd nmbd samba-ad-dc`); the testbed does not kill processes it did not start.',
    );
  }
  if (ours !== undefined) return;
  // A DC of this testbed that is stopping (its master gone, as after a fault test killed smbd) still holds ports
  // until its last children have closed them: wait for them rather than take them for someone else's.
  const ownStopping = async () => (await listProcesses()).some((info) => inOurNetwork(info.pid) && info.cmdline.includes(layout.samba.conf));
  await waitUntil('the stopping Samba of this testbed to exit', async () => !(await ownStopping()), 30_000);
  const busy = [];
  for (const port of boundPorts) if (await isPortOpen(dcAddress, port, 300)) busy.push(port);
  if (busy.length > 0) {
    throw new Error(`ports ${busy.join(', ')} on ${dcAddress} are in use by processes the testbed did not start`);
  }
}

async function openSambaPorts(): Promise<boolean[]> {
  return Promise.all(sambaPorts.map((port) => isPortOpen(dcAddress, port)));
}

export async function sambaPortsAnswer(): Promise<boolean> {
  return (await openSambaPorts()).every(Boolean);
}

/** Starts the DC unless it already runs; returns its pid and whether it was started now. */
export async function ensureSambaRunning(): Promise<{ pid: number; started: boolean }> {
  const running = await runningSamba();
  await assertNoForeignSamba(running);
  if (running !== undefined) {
    await waitUntil('Samba ports 445 and 636', sambaPortsAnswer, 60_000, () => fileTail(logFile));
    return { pid: running, started: false };
  }
  await rm(layout.samba.pidFile, { force: true });
  await mkdir(layout.samba.pidDir, { recursive: true });
  await mkdir(layout.samba.logDir, { recursive: true });
  await mkdir(layout.samba.runtimeDir, { recursive: true });
  await mkdir(systemRuntimeDir, { recursive: true });
  // smbd finds winbindd through a socket under /run/samba, a path libwbclient has compiled in (smb.conf cannot
  // move it). Testbeds of other network namespaces on this machine would share it, and the smbd of one would
  // take its ID mappings from another domain's winbindd. So the DC runs in a mount namespace of its own in
  // which /run/samba is a folder of this testbed.
  await run('unshare', [
    '--mount', '--propagation', 'private', 'sh', '-c', 'mount --bind "$1" "$2" && exec samba -s "$3"',
    'sh', layout.samba.runtimeDir, systemRuntimeDir, layout.samba.conf,
  ]);
  let pid: number | undefined;
  await waitUntil(
    'Samba to listen on 445 (SMB) and 636 (LDAPS)',
    async () => (pid ??= await runningSamba()) !== undefined && (await sambaPortsAnswer()),
    90_000,
    () => fileTail(logFile),
  );
  return { pid: pid as number, started: true };
}

export async function stopSamba(): Promise<string> {
  const pid = await runningSamba();
  if (pid === undefined) return 'Samba not running';
  const how = await stopProcess(pid);
  // The master's children (smbd, ldap, kdc ...) follow it; wait so that a following `up` finds the ports free.
  await waitUntil('Samba ports to close', async () => !(await openSambaPorts()).some(Boolean), 30_000).catch(() => {
    note('Samba ports still open after the master exited');
  });
  return `Samba pid ${pid} ${how}`;
}

export interface LdapTls {
  caFile: string;
  serverName: string;
}

function commonName(distinguishedName: string): string | undefined {
  return distinguishedName.split('\n').find((part) => part.startsWith('CN='))?.slice(3);
}

/**
 * Samba generates a self-signed CA and host certificate on its first start. The CA is copied out of the
 * root-only private dir; the host name in the certificate (CN, there is no SAN) is what clients verify.
 */
export async function ldapTls(): Promise<LdapTls> {
  const caFile = `${layout.samba.tlsDir}/ca.pem`;
  const certFile = `${layout.samba.tlsDir}/cert.pem`;
  await waitUntil('Samba to generate its TLS certificate', async () => exists(certFile), 30_000);
  const ca = new X509Certificate(await readFile(caFile));
  const cert = new X509Certificate(await readFile(certFile));
  if (!cert.verify(ca.publicKey)) throw new Error(`${certFile} is not signed by ${caFile}`);
  const dnsNames = (cert.subjectAltName ?? '').split(', ').filter((name) => name.startsWith('DNS:'));
  const serverName = dnsNames[0]?.slice(4) ?? commonName(cert.subject);
  if (!serverName) throw new Error(`${certFile} names no host (subject ${cert.subject})`);
  await copyFile(caFile, layout.samba.caCopy);
  await chmod(layout.samba.caCopy, 0o644);
  return { caFile: layout.samba.caCopy, serverName };
}

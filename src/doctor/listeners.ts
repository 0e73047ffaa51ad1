// Which addresses a TCP port is listened on, from the kernel's socket tables.
// Reading /proc sends no traffic, so the doctor can tell an Elasticsearch
// published beyond loopback without probing the host's other addresses.
import { readFileSync } from 'node:fs';

const LISTEN = '0A';

/** Local addresses of LISTEN sockets on `port` ("0.0.0.0", "::", "127.0.0.1", …). */
export function listeningAddresses(port: number, tables = ['/proc/net/tcp', '/proc/net/tcp6']): string[] {
  const found: string[] = [];
  for (const table of tables) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 on this host
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, portHex] = (fields[1] ?? '').split(':');
      if (fields[3] !== LISTEN || !address || Number.parseInt(portHex ?? '', 16) !== port) continue;
      found.push(decodeAddress(address));
    }
  }
  return found;
}

/** The kernel prints addresses as host-order 32-bit words in hex. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => [w.slice(6, 8), w.slice(4, 6), w.slice(2, 4), w.slice(0, 2)].map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '0:0:0:0:0:0:0:1' || address === '::1' || address.startsWith('::ffff:127.');
}

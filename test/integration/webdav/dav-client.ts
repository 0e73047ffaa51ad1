// WebDAV as the integration tests speak it to a running service: fetch with
// Basic credentials for ordinary requests, a raw socket for request-targets
// that fetch would normalise or refuse to send.
import { connect } from 'node:net';
import type { RunningService } from '../../support/service.js';
import type { TestbedEnv } from '../../testbed/env.js';

export interface Account {
  user: string;
  password: string;
}

export function account(env: TestbedEnv, name: string): Account {
  const u = env.users[name];
  if (!u) throw new Error(`testbed has no user ${name}`);
  return { user: name, password: u.password };
}

export function basic(a: Account): string {
  return `Basic ${Buffer.from(`${a.user}:${a.password}`).toString('base64')}`;
}

export class DavClient {
  /** `headers`: sent with every request (X-Service-User of a trusted caller). */
  constructor(readonly service: Pick<RunningService, 'url'>, readonly as: Account | undefined, readonly share = 'schule', readonly headers: Record<string, string> = {}) {}

  url(path: string): string {
    return `${this.service.url}/dav/${this.share}/${path.split('/').map(encodeURIComponent).join('/')}`;
  }

  request(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Response> {
    return fetch(this.url(path), {
      method,
      headers: { ...(this.as ? { authorization: basic(this.as) } : {}), ...this.headers, ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
  }

  async put(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('PUT', path, { body, headers });
  }

  async mkcol(path: string): Promise<number> {
    return (await this.request('MKCOL', path)).status;
  }

  async text(path: string): Promise<{ status: number; body: string; etag: string | null }> {
    const res = await this.request('GET', path);
    return { status: res.status, body: await res.text(), etag: res.headers.get('etag') };
  }

  /** DELETE of a whole tree, for cleanup. */
  async remove(path: string): Promise<number> {
    return (await this.request('DELETE', path)).status;
  }
}

/**
 * Sends one request with `target` exactly as given on the wire; resolves with the status code. The socket is not
 * half-closed (the server may drop the answer then); `Connection: close` makes the server close it.
 */
export function rawStatus(service: RunningService, method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<number> {
  const { port, hostname } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [`${method} ${target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
    });
    let head = '';
    socket.on('data', (d: Buffer) => { head += d.toString('latin1'); });
    socket.on('error', reject);
    socket.on('close', () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`no HTTP answer to ${method} ${target}: ${JSON.stringify(head.slice(0, 200))}`));
    });
  });
}

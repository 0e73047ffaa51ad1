/**
 * One WebDAV request of a benchmark driver on a kept-alive connection, and what of its answer the drivers use: the
 * WebDAV benchmark (bench/webdav/run.ts) and the lock round trips of several proxies (bench/several-proxies).
 */
import { request, type Agent } from 'node:http';

/** Where requests go: the URL the paths are appended to, and the headers every request carries (credentials). */
export interface DavOrigin {
  base: string;
  headers: Record<string, string>;
}

export interface Answer {
  status: number;
  etag: string | undefined;
  /** A LOCK's `Lock-Token` header: `<token>`. */
  lockToken: string | undefined;
}

export function send(origin: DavOrigin, agent: Agent, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin.base}${path}`, { method, agent, headers: { ...origin.headers, ...headers } }, (res) => {
      res.resume();
      const lockToken = res.headers['lock-token'];
      res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, lockToken: typeof lockToken === 'string' ? lockToken : undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A connection that breaks answers with status 0. */
export const sendOrBreak = (...args: Parameters<typeof send>): Promise<Answer> => send(...args).catch((): Answer => ({ status: 0, etag: undefined, lockToken: undefined }));

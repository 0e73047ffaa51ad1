/**
 * Mixed load on a running service while a fault strikes: WebDAV GETs and PUTs of the pages of a scratch wiki
 * folder and wiki searches, from a few concurrent clients, each request bounded so that a hang shows up as an
 * outcome instead of stalling the test. Every answer (or transport failure) is recorded with its time.
 */
import type { TestbedEnv } from '../../testbed/env.js';
import { account, basic, type Account } from '../../integration/webdav/dav-client.js';
import { groupsHeader } from '../../integration/wiki/wiki-service.js';

export type RequestKind = 'dav-get' | 'dav-put' | 'search';

export interface Outcome {
  kind: RequestKind;
  /** The page of a WebDAV request. */
  page?: string;
  /** The HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  /** The parsed JSON body of JSON answers. */
  json?: unknown;
  error?: string;
  startedAt: number;
  ms: number;
}

/** The caller of the load: a teacher who may write the share root and search its wiki. */
export const LOAD_USER = 'anna';
export const LOAD_GROUPS = ['Lehrer'];
/** A word of the testbed's seeded `schule/.wiki/regeln.md`, so searches have hits while Elasticsearch is up. */
export const SEARCH_TERM = 'Schulregeln';

export function pagePath(folder: string, n: number): string {
  return `${folder}/.wiki/seite-${n}.md`;
}

/** A page body that names its page and version, so a torn write is told from a whole one. */
export function pageContent(page: string, version: number): string {
  return `# ${page}\n\nVersion ${version}\n\n${'Inhalt einer Wiki-Seite. '.repeat(200)}\n`;
}

/** Requests to the service at `url` as one caller (Basic credentials; `groups` for X-Service-Groups). */
export class ServiceCalls {
  constructor(readonly url: string, readonly user: Account, readonly groups = LOAD_GROUPS) {}

  /** As a testbed account with its password. */
  static as(url: string, env: TestbedEnv, user = LOAD_USER, groups = LOAD_GROUPS): ServiceCalls {
    return new ServiceCalls(url, account(env, user), groups);
  }

  private async send(kind: RequestKind, path: string, init: RequestInit, timeoutMs: number, page?: string): Promise<Outcome> {
    const startedAt = Date.now();
    const outcome = (fields: Pick<Outcome, 'status'> & Partial<Outcome>): Outcome => ({
      kind, ...(page === undefined ? {} : { page }), startedAt, ms: Date.now() - startedAt, ...fields,
    });
    try {
      const res = await fetch(`${this.url}${path}`, {
        ...init,
        headers: { authorization: basic(this.user), ...init.headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      const json = (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : undefined;
      return outcome({ status: res.status, ...(json === undefined ? {} : { json }) });
    } catch (error) {
      return outcome({ status: 0, error: error instanceof Error ? `${error.name}: ${error.message} ${String(error.cause ?? '')}` : String(error) });
    }
  }

  private davPath(page: string): string {
    return `/dav/schule/${page.split('/').map(encodeURIComponent).join('/')}`;
  }

  get(page: string, timeoutMs = 60_000): Promise<Outcome> {
    return this.send('dav-get', this.davPath(page), { method: 'GET' }, timeoutMs, page);
  }

  put(page: string, body: string, timeoutMs = 60_000): Promise<Outcome> {
    return this.send('dav-put', this.davPath(page), { method: 'PUT', body }, timeoutMs, page);
  }

  /** A PUT whose body arrives in two parts: `head` at once, the rest when `tail` resolves (chunked). */
  putInTwoParts(page: string, head: string, tail: Promise<string>, timeoutMs = 60_000): Promise<Outcome> {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(head));
        controller.enqueue(encoder.encode(await tail));
        controller.close();
      },
    });
    // `duplex` is required for a stream body; the DOM typings of RequestInit lack it.
    return this.send('dav-put', this.davPath(page), { method: 'PUT', body, duplex: 'half' } as RequestInit, timeoutMs, page);
  }

  mkcol(folder: string): Promise<Outcome> {
    return this.send('dav-put', this.davPath(folder), { method: 'MKCOL' }, 60_000);
  }

  search(q = SEARCH_TERM, timeoutMs = 60_000): Promise<Outcome> {
    return this.send('search', '/wiki/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-groups': groupsHeader(this.groups) },
      body: JSON.stringify({ q, size: 10 }),
    }, timeoutMs);
  }
}

/** Creates `<folder>/.wiki` (the folder exists) with `pages` pages at version 0, through the service. */
export async function createScratchWiki(calls: ServiceCalls, folder: string, pages: number): Promise<void> {
  const made = await calls.mkcol(`${folder}/.wiki`);
  if (made.status !== 201) throw new Error(`MKCOL ${folder}/.wiki: ${made.status} ${JSON.stringify(made.json ?? made.error)}`);
  for (let n = 0; n < pages; n++) {
    const page = pagePath(folder, n);
    const put = await calls.put(page, pageContent(page, 0));
    if (put.status !== 201) throw new Error(`PUT ${page}: ${put.status} ${JSON.stringify(put.json ?? put.error)}`);
  }
}

/**
 * `clients` loops, each sending GET, PUT and search in turn over the pages of `folder`, until stop(). PUTs write
 * ever higher versions; `sent` keeps every body sent per page (any of them may be the page's content afterwards).
 */
export class MixedLoad {
  readonly outcomes: Outcome[] = [];
  readonly sent = new Map<string, string[]>();
  private running = true;
  private readonly loops: Promise<void>[];
  private version = 0;

  constructor(private readonly calls: ServiceCalls, private readonly folder: string, private readonly pages: number, clients = 3) {
    for (let n = 0; n < pages; n++) {
      const page = pagePath(folder, n);
      this.sent.set(page, [pageContent(page, 0)]);
    }
    this.loops = Array.from({ length: clients }, (_, client) => this.loop(client));
  }

  private async loop(client: number): Promise<void> {
    for (let turn = client; this.running; turn++) {
      const page = pagePath(this.folder, turn % this.pages);
      switch (turn % 3) {
        case 0:
          this.outcomes.push(await this.calls.get(page));
          break;
        case 1: {
          const body = pageContent(page, ++this.version);
          this.sent.get(page)!.push(body);
          this.outcomes.push(await this.calls.put(page, body));
          break;
        }
        default:
          this.outcomes.push(await this.calls.search());
      }
    }
  }

  /** Outcomes of requests started at or after `since`. */
  since(since: number): Outcome[] {
    return this.outcomes.filter((o) => o.startedAt >= since);
  }

  /** Waits until at least `count` requests started at or after `since` were answered. */
  async until(since: number, count: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.since(since).length < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.since(since).length} of ${count} requests answered within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<Outcome[]> {
    this.running = false;
    await Promise.all(this.loops);
    return this.outcomes;
  }
}

/** A readable line per outcome, for assertion messages. */
export function describeOutcomes(outcomes: readonly Outcome[]): string {
  return outcomes.map((o) => `${o.kind} ${o.page ?? ''} ${o.status} ${o.ms} ms ${o.error ?? JSON.stringify(o.json ?? '')}`).join('\n');
}

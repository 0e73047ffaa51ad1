// HTTP helpers for the webhook APIs of a running service: the admin API as a
// given user, and webhook posts with explicit headers. Used by the webhook
// integration tests and by bench/webhook.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { RunningService } from '../../support/service.js';
import { waitFor } from '../../support/service.js';
import type { TestbedEnv } from '../../testbed/env.js';

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

async function call<T>(url: string, init: RequestInit): Promise<ApiResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: body as T };
}

/** An answer in the service's error shape with this status and code (and a message matching `message`). */
export function assertError(res: ApiResponse<unknown>, status: number, code: string, message?: RegExp): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'status']);
  assert.equal(body['status'], 'error');
  assert.equal(body['error'], code);
  if (message) assert.match(String(body['message']), message);
}

export interface ClientEntry {
  id: string;
  user_agent: string;
  api_key: string;
  created_at: string;
}

/** The admin API under /edu-api/admin/webhook-clients, authenticated as one user. */
export class AdminApi {
  private readonly base: string;
  constructor(serviceUrl: string, private readonly authorization: string | undefined) {
    this.base = `${serviceUrl}/edu-api/admin/webhook-clients`;
  }

  static asAdmin(serviceUrl: string, env: TestbedEnv): AdminApi {
    return new AdminApi(serviceUrl, basicAuth(env.admin.user, env.admin.password));
  }

  private headers(json: boolean): Record<string, string> {
    return {
      ...(this.authorization === undefined ? {} : { authorization: this.authorization }),
      ...(json ? { 'content-type': 'application/json' } : {}),
    };
  }

  create(body: unknown): Promise<ApiResponse<ClientEntry>> {
    return call(this.base, { method: 'POST', headers: this.headers(true), body: JSON.stringify(body) });
  }

  list(userAgent?: string): Promise<ApiResponse<{ clients: ClientEntry[] }>> {
    const query = userAgent === undefined ? '' : `?user_agent=${encodeURIComponent(userAgent)}`;
    return call(`${this.base}${query}`, { headers: this.headers(false) });
  }

  reveal(id: string): Promise<ApiResponse<{ id: string; api_key: string }>> {
    return call(`${this.base}/${id}/key`, { headers: this.headers(false) });
  }

  deleteMany(body: unknown): Promise<ApiResponse<{ deleted: string[]; not_found: string[] }>> {
    return call(this.base, { method: 'DELETE', headers: this.headers(true), body: JSON.stringify(body) });
  }

  deleteOne(id: string): Promise<ApiResponse<{ deleted: string[]; not_found: string[] }>> {
    return call(`${this.base}/${id}`, { method: 'DELETE', headers: this.headers(false) });
  }

  /** Any other request under the base path (for refusals). */
  raw(method: string, path: string, body?: string): Promise<ApiResponse> {
    return call(`${this.base}${path}`, { method, headers: this.headers(body !== undefined), ...(body === undefined ? {} : { body }) });
  }

  /** A client with its key in clear: create, then reveal (creation never shows the key). */
  async register(userAgent: string): Promise<ClientEntry> {
    const created = await this.create({ user_agent: userAgent });
    if (created.status !== 201) throw new Error(`creating a ${userAgent} client failed: ${created.status} ${JSON.stringify(created.body)}`);
    const revealed = await this.reveal(created.body.id);
    if (revealed.status !== 200) throw new Error(`revealing the key failed: ${revealed.status} ${JSON.stringify(revealed.body)}`);
    return { ...created.body, api_key: revealed.body.api_key };
  }
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export interface WebhookPost {
  key?: string | undefined;
  timestamp?: string | number | undefined;
  eventId?: string | undefined;
  userAgent?: string | undefined;
  contentType?: string | undefined;
  body?: string | undefined;
}

/**
 * POST /edu-api/webhook. Every header can be left out by passing `undefined`
 * explicitly; fields not mentioned get valid defaults (fresh event id, current time).
 */
export function postWebhook(serviceUrl: string, post: WebhookPost): Promise<ApiResponse> {
  const defaults: WebhookPost = { timestamp: nowSeconds(), eventId: randomUUID(), contentType: 'application/json', body: '{}' };
  const p = { ...defaults, ...post };
  const headers: Record<string, string> = {};
  const set = (name: string, value: string | number | undefined) => { if (value !== undefined) headers[name] = String(value); };
  set('x-webhook-key', p.key);
  set('x-webhook-timestamp', p.timestamp);
  set('x-webhook-event-id', p.eventId);
  set('user-agent', p.userAgent);
  set('content-type', p.contentType);
  return call(`${serviceUrl}/edu-api/webhook`, { method: 'POST', headers, body: p.body ?? '' });
}

/** The service's log lines containing every one of `parts`, once at least one has arrived (logs come through a pipe). */
export async function logLines(service: RunningService, ...parts: string[]): Promise<string[]> {
  const matching = () => service.output().split('\n').filter((line) => parts.every((part) => line.includes(part)));
  await waitFor(async () => matching().length > 0, 5_000);
  return matching();
}

/**
 * The same webhook post `count` times at the same moment: every connection is opened first,
 * then all requests are written in one synchronous loop, so that they reach the service
 * together (fetch would trickle them in while it opens connections). Returns the statuses.
 */
export async function simultaneousPosts(serviceUrl: string, count: number, post: Required<Pick<WebhookPost, 'key' | 'userAgent' | 'eventId'>> & WebhookPost): Promise<number[]> {
  const url = new URL(serviceUrl);
  const body = post.body ?? '{}';
  const head = [
    'POST /edu-api/webhook HTTP/1.1', `host: ${url.host}`, `x-webhook-key: ${post.key}`,
    `x-webhook-timestamp: ${post.timestamp ?? nowSeconds()}`, `x-webhook-event-id: ${post.eventId}`, `user-agent: ${post.userAgent}`,
    'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, 'connection: close',
  ].join('\r\n');
  const raw = `${head}\r\n\r\n${body}`;
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<Socket>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  })));
  const answers = sockets.map((socket) => new Promise<number>((resolve, reject) => {
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => { text += chunk; });
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', reject);
  }));
  for (const socket of sockets) socket.write(raw);
  return Promise.all(answers);
}

/** How often each status occurs: `{ 200: 1, 409: 199 }`. */
export function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

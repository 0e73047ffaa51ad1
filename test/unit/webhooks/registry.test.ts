import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MASKED_KEY } from '../../../src/webhooks/client.js';
import { UnsupportedUserAgentError, WebhookClientRegistry } from '../../../src/webhooks/registry.js';
import { FileWebhookClientStore, WebhookStoreError, WEBHOOK_CLIENTS_FILE } from '../../../src/webhooks/store.js';

const supportedUserAgents = ['service-eventhandler', 'platform-api'];

describe('WebhookClientRegistry with the file store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-registry-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const openRegistry = () => WebhookClientRegistry.open(new FileWebhookClientStore(dir), { supportedUserAgents });

  it('creates a client with a generated 32-byte base64url key and a creation time', async () => {
    const registry = await WebhookClientRegistry.open(new FileWebhookClientStore(dir), {
      supportedUserAgents,
      now: () => new Date('2025-03-01T10:00:00.000Z'),
    });
    const client = await registry.create('service-eventhandler');
    assert.match(client.api_key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(client.api_key, 'base64url').length, 32);
    assert.equal(client.user_agent, 'service-eventhandler');
    assert.equal(client.created_at, '2025-03-01T10:00:00.000Z');
    assert.ok(client.id.length > 0);
  });

  it('lets several clients share one User-Agent, each with its own key', async () => {
    const registry = await openRegistry();
    const a = await registry.create('platform-api');
    const b = await registry.create('platform-api');
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.api_key, b.api_key);
    assert.equal(registry.findByKey(a.api_key)?.id, a.id);
    assert.equal(registry.findByKey(b.api_key)?.id, b.id);
  });

  it('refuses a User-Agent that is not a supported service and stores nothing', async () => {
    const registry = await openRegistry();
    await assert.rejects(registry.create('curl'), UnsupportedUserAgentError);
    assert.deepEqual(registry.list(), []);
  });

  it('lists with masked keys and filters by User-Agent', async () => {
    const registry = await openRegistry();
    const a = await registry.create('service-eventhandler');
    const b = await registry.create('platform-api');
    const all = registry.list();
    assert.deepEqual(all.map((c) => c.id), [a.id, b.id]);
    for (const c of all) assert.equal(c.api_key, MASKED_KEY);
    assert.ok(!JSON.stringify(all).includes(a.api_key));
    assert.deepEqual(registry.list({ userAgent: 'platform-api' }).map((c) => c.id), [b.id]);
    assert.deepEqual(registry.list({ userAgent: 'other' }), []);
  });

  it('reveals the key of one client', async () => {
    const registry = await openRegistry();
    const a = await registry.create('service-eventhandler');
    assert.equal(registry.reveal(a.id)?.api_key, a.api_key);
    assert.equal(registry.reveal('no-such-id'), undefined);
  });

  it('deletes several clients; their keys stop working at once, others keep working', async () => {
    const registry = await openRegistry();
    const a = await registry.create('service-eventhandler');
    const b = await registry.create('platform-api');
    const c = await registry.create('platform-api');
    const result = await registry.delete([a.id, b.id, 'missing']);
    assert.deepEqual(result, { deleted: [a.id, b.id], notFound: ['missing'] });
    assert.equal(registry.findByKey(a.api_key), undefined);
    assert.equal(registry.findByKey(b.api_key), undefined);
    assert.equal(registry.findByKey(c.api_key)?.id, c.id);
    assert.deepEqual((await openRegistry()).list().map((x) => x.id), [c.id]);
  });

  it('keeps clients across a restart (new registry from the same directory)', async () => {
    const first = await openRegistry();
    const a = await first.create('service-eventhandler');
    const b = await first.create('platform-api');
    const second = await openRegistry();
    assert.deepEqual(second.reveal(a.id), a);
    assert.deepEqual(second.reveal(b.id), b);
    assert.equal(second.findByKey(b.api_key)?.id, b.id);
  });

  it('writes the file with mode 0600 and leaves no temp files', async () => {
    const registry = await openRegistry();
    await registry.create('service-eventhandler');
    await registry.create('platform-api');
    const info = await stat(join(dir, WEBHOOK_CLIENTS_FILE));
    assert.equal(info.mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir), [WEBHOOK_CLIENTS_FILE]);
  });

  it('creates a missing data directory', async () => {
    const nested = join(dir, 'a', 'b');
    const registry = await WebhookClientRegistry.open(new FileWebhookClientStore(nested), { supportedUserAgents });
    await registry.create('platform-api');
    assert.equal((await readdir(nested)).length, 1);
  });

  it('serialises concurrent changes without losing any', async () => {
    const registry = await openRegistry();
    await Promise.all(Array.from({ length: 10 }, () => registry.create('platform-api')));
    assert.equal(registry.list().length, 10);
    assert.equal((await openRegistry()).list().length, 10);
  });

  it('reports a corrupt file clearly instead of starting empty', async () => {
    await writeFile(join(dir, WEBHOOK_CLIENTS_FILE), '{"version":1,"clients":[', { mode: 0o600 });
    await assert.rejects(openRegistry(), (err: Error) => {
      assert.ok(err instanceof WebhookStoreError);
      assert.match(err.message, /not valid JSON/);
      assert.ok(err.message.includes(WEBHOOK_CLIENTS_FILE));
      return true;
    });
  });

  it('reports a file of the wrong shape naming the field', async () => {
    const bad = { version: 1, clients: [{ id: 'x', user_agent: 'platform-api', created_at: '2025-01-01T00:00:00Z' }] };
    await writeFile(join(dir, WEBHOOK_CLIENTS_FILE), JSON.stringify(bad));
    await assert.rejects(openRegistry(), /unexpected shape at clients\.0\.api_key/);
  });

  it('keeps the old state when the write fails', async () => {
    const registry = await WebhookClientRegistry.open(
      { load: async () => [], save: async () => Promise.reject(new Error('disk full')) },
      { supportedUserAgents },
    );
    await assert.rejects(registry.create('platform-api'), /disk full/);
    assert.deepEqual(registry.list(), []);
  });

  it('the stored file holds the keys so they can be revealed after a restart', async () => {
    const registry = await openRegistry();
    const a = await registry.create('platform-api');
    const text = await readFile(join(dir, WEBHOOK_CLIENTS_FILE), 'utf8');
    assert.ok(text.includes(a.api_key));
  });

  it('looks keys up through their SHA-256 with a constant-time comparison', async () => {
    const registry = await openRegistry();
    const a = await registry.create('platform-api');
    const compare = mock.method(crypto, 'timingSafeEqual');
    try {
      assert.equal(registry.findByKey(a.api_key)?.id, a.id);
      assert.equal(compare.mock.callCount(), 1);
      const [stored, presented] = compare.mock.calls[0]!.arguments as [Buffer, Buffer];
      assert.equal(stored.length, 32);
      assert.deepEqual(presented, crypto.createHash('sha256').update(a.api_key).digest());
      // a key that differs only in its last character is not found
      const last = a.api_key.at(-1) === 'A' ? 'B' : 'A';
      assert.equal(registry.findByKey(a.api_key.slice(0, -1) + last), undefined);
    } finally {
      compare.mock.restore();
    }
  });
});

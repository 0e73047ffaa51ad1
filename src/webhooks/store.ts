import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { WebhookClient } from './client.js';

/** Where webhook clients live between restarts. */
export interface WebhookClientStore {
  load(): Promise<WebhookClient[]>;
  /** Replaces the list; a store shared by several proxies throws ClientListChangedError if it changed since `load`. */
  save(clients: readonly WebhookClient[]): Promise<void>;
}

export class WebhookStoreError extends Error {
  override readonly name = 'WebhookStoreError';
}

/** Another proxy changed the shared list since this one loaded it: load again and redo the change. */
export class ClientListChangedError extends Error {
  override readonly name = 'ClientListChangedError';
}

const FILE_VERSION = 1;

/** The stored client list, in the file and in the shared store's document alike. */
export const storedClientsSchema = z.object({
  version: z.literal(FILE_VERSION),
  clients: z.array(
    z.object({
      id: z.string().min(1),
      user_agent: z.string().min(1),
      api_key: z.string().min(1),
      created_at: z.iso.datetime(),
    }),
  ),
});

export const WEBHOOK_CLIENTS_FILE = 'webhook-clients.json';

/**
 * Keeps the clients as one JSON file (mode 0600) in the data directory. Keys are stored in
 * plain text because the settings must be able to reveal them; the file permissions are the
 * protection. Each save writes a temp file, fsyncs it, renames it over the old file and fsyncs
 * the directory, so a crash leaves either the old or the new list, never a torn file.
 */
export class FileWebhookClientStore implements WebhookClientStore {
  readonly path: string;

  constructor(readonly dataDir: string, fileName: string = WEBHOOK_CLIENTS_FILE) {
    this.path = join(dataDir, fileName);
  }

  async load(): Promise<WebhookClient[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new WebhookStoreError(`cannot read webhook clients file ${this.path}: ${(err as Error).message}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new WebhookStoreError(`webhook clients file ${this.path} is not valid JSON: ${(err as Error).message}`);
    }
    const parsed = storedClientsSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new WebhookStoreError(
        `webhook clients file ${this.path} has an unexpected shape${where}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return parsed.data.clients;
  }

  async save(clients: readonly WebhookClient[]): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const content = `${JSON.stringify(storedClients(clients), null, 2)}\n`;
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await file.chmod(0o600); // the umask may only narrow the mode; make it exact
        await file.writeFile(content, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, this.path);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw new WebhookStoreError(`cannot write webhook clients file ${this.path}: ${(err as Error).message}`);
    }
    await syncDirectory(this.dataDir);
  }
}

export function storedClients(clients: readonly WebhookClient[]): z.infer<typeof storedClientsSchema> {
  return { version: FILE_VERSION, clients: [...clients] };
}

/** Makes the rename durable: the directory entry itself must reach the disk. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

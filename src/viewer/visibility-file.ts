/**
 * The wiki visibility settings as one JSON file in `storage.data_dir` (mode 0600):
 * `{ "version": 1, "shares": { "<share>": { "active": true, "access_groups": ["..."] } } }`.
 * A save writes a temporary file, fsyncs it, renames it over the old one and fsyncs the directory, so a crash
 * leaves the old or the new settings, never a torn file. A file that cannot be read or parsed is an error, not an
 * empty list: silently falling back to the defaults would switch every disabled wiki back on.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { VisibilityStore, WikiVisibility } from './visibility.js';

export const WIKI_VISIBILITY_FILE = 'wiki-visibility.json';

const FILE_VERSION = 1;

const fileSchema = z.strictObject({
  version: z.literal(FILE_VERSION),
  shares: z.record(z.string(), z.strictObject({ active: z.boolean(), access_groups: z.array(z.string()) })),
});

export class VisibilityFileError extends Error {
  override readonly name = 'VisibilityFileError';
}

export class VisibilityFile implements VisibilityStore {
  readonly path: string;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, WIKI_VISIBILITY_FILE);
  }

  async load(): Promise<Record<string, WikiVisibility>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new VisibilityFileError(`cannot read the wiki visibility file ${this.path}: ${(error as Error).message}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new VisibilityFileError(`the wiki visibility file ${this.path} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = fileSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new VisibilityFileError(`the wiki visibility file ${this.path} has an unexpected shape${where}: ${issue.message}`);
    }
    return parsed.data.shares;
  }

  async save(settings: Record<string, WikiVisibility>): Promise<void> {
    const content = `${JSON.stringify({ version: FILE_VERSION, shares: settings }, null, 2)}\n`;
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
      // `wx`: a fresh file of our own; `flush`: its data is on disk before the rename makes it current.
      await writeFile(temp, content, { encoding: 'utf8', mode: 0o600, flag: 'wx', flush: true });
      await rename(temp, this.path);
      const dir = await open(this.dataDir, constants.O_RDONLY);
      await dir.sync().finally(() => dir.close()); // the rename itself must reach the disk
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw new VisibilityFileError(`cannot write the wiki visibility file ${this.path}: ${(error as Error).message}`);
    }
  }
}

import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VisibilityFile, VisibilityFileError, WIKI_VISIBILITY_FILE } from '../../../src/viewer/visibility-file.js';
import {
  parseVisibilityUpdate,
  VisibilityRequestError,
  WikiVisibilitySettings,
  type VisibilityStore,
  type WikiVisibility,
} from '../../../src/viewer/visibility.js';
import { scratchDir } from '../../support/scratch-dir.js';

function fieldOf(body: unknown): string {
  try {
    parseVisibilityUpdate(body);
  } catch (error) {
    assert.ok(error instanceof VisibilityRequestError);
    assert.ok(error.message.startsWith(`${error.field}: `), error.message);
    return error.field;
  }
  assert.fail(`${JSON.stringify(body)} was accepted`);
}

/** A store in memory that records what was saved. */
function memoryStore(initial: Record<string, WikiVisibility> = {}) {
  const saved: Record<string, WikiVisibility>[] = [];
  const store: VisibilityStore = {
    load: async () => initial,
    save: async (settings) => {
      saved.push(settings);
    },
  };
  return { store, saved };
}

describe('parseVisibilityUpdate', () => {
  it('takes active and trimmed access groups, repeats counted once regardless of case', () => {
    assert.deepEqual(parseVisibilityUpdate({ active: true }), { active: true, access_groups: [] });
    assert.deepEqual(parseVisibilityUpdate({ active: false, access_groups: [' Lehrer ', 'lehrer', 'Lehrkräfte Mathe'] }), {
      active: false,
      access_groups: ['Lehrer', 'Lehrkräfte Mathe'],
    });
  });

  it('names the field that is wrong', () => {
    assert.equal(fieldOf([]), 'body');
    assert.equal(fieldOf({}), 'active');
    assert.equal(fieldOf({ active: 'yes' }), 'active');
    assert.equal(fieldOf({ active: true, colour: 'red' }), 'colour');
    assert.equal(fieldOf({ active: true, access_groups: 'Lehrer' }), 'access_groups');
    assert.equal(fieldOf({ active: true, access_groups: ['Lehrer', 7] }), 'access_groups[1]');
    assert.equal(fieldOf({ active: true, access_groups: ['  '] }), 'access_groups[0]');
    assert.equal(fieldOf({ active: true, access_groups: ['a\u0000b'] }), 'access_groups[0]');
    assert.equal(fieldOf({ active: true, access_groups: ['x'.repeat(257)] }), 'access_groups[0]');
    assert.equal(fieldOf({ active: true, access_groups: Array.from({ length: 101 }, (_, i) => `g${i}`) }), 'access_groups');
  });
});

describe('WikiVisibilitySettings', () => {
  const shares = ['schule', 'Verwaltung'];

  it('lists every configured share, active for everyone unless set otherwise', async () => {
    const settings = await WikiVisibilitySettings.open(memoryStore({ verwaltung: { active: false, access_groups: [] } }).store, shares);
    assert.deepEqual(settings.list(), [
      { share: 'schule', active: true, access_groups: [] },
      { share: 'Verwaltung', active: false, access_groups: [] },
    ]);
  });

  it('stores under the configured spelling and refuses shares that are not configured', async () => {
    const { store, saved } = memoryStore();
    const settings = await WikiVisibilitySettings.open(store, shares);
    assert.deepEqual(await settings.set('VERWALTUNG', { active: true, access_groups: ['Verwaltung'] }), {
      share: 'Verwaltung',
      active: true,
      access_groups: ['Verwaltung'],
    });
    assert.deepEqual(saved, [{ Verwaltung: { active: true, access_groups: ['Verwaltung'] } }]);
    assert.equal(await settings.set('privat', { active: true, access_groups: [] }), null);
    assert.equal(saved.length, 1);
  });

  it('keeps the old settings when saving fails', async () => {
    const store: VisibilityStore = { load: async () => ({}), save: async () => Promise.reject(new Error('disk full')) };
    const settings = await WikiVisibilitySettings.open(store, shares);
    await assert.rejects(settings.set('schule', { active: false, access_groups: [] }), /disk full/);
    assert.deepEqual(settings.get('schule'), { active: true, access_groups: [] });
  });

  it('shows active wikis whose access groups include one of the caller groups (case-insensitive)', async () => {
    const settings = await WikiVisibilitySettings.open(memoryStore().store, ['a', 'b', 'c']);
    await settings.set('a', { active: true, access_groups: [] });
    await settings.set('b', { active: true, access_groups: ['Lehrkräfte Mathe'] });
    await settings.set('c', { active: false, access_groups: [] });
    assert.deepEqual(settings.visibleShares(['Lehrer']), ['a']);
    assert.deepEqual(settings.visibleShares(['lehrkräfte mathe']), ['a', 'b']);
    assert.deepEqual(settings.visibleShares([]), ['a']);
  });
});

describe('VisibilityFile', () => {
  const dir = () => scratchDir('wiki-visibility-');

  it('is empty before the first save, then holds what was saved, with mode 0600', async () => {
    const data = join(dir(), 'nested');
    const file = new VisibilityFile(data);
    assert.deepEqual(await file.load(), {});
    await file.save({ schule: { active: false, access_groups: ['Lehrer'] } });
    await file.save({ schule: { active: true, access_groups: [] } });
    assert.deepEqual(await file.load(), { schule: { active: true, access_groups: [] } });
    assert.equal(statSync(join(data, WIKI_VISIBILITY_FILE)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(join(data, WIKI_VISIBILITY_FILE), 'utf8')).version, 1);
  });

  it('refuses a damaged file instead of falling back to the defaults', async () => {
    const data = dir();
    const path = join(data, WIKI_VISIBILITY_FILE);
    writeFileSync(path, '{"version":1,');
    await assert.rejects(new VisibilityFile(data).load(), (error: Error) => error instanceof VisibilityFileError && /not valid JSON/.test(error.message));
    writeFileSync(path, JSON.stringify({ version: 1, shares: { schule: { active: 'yes', access_groups: [] } } }));
    await assert.rejects(new VisibilityFile(data).load(), /unexpected shape at shares\.schule\.active/);
  });
});

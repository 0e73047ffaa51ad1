// Dead-property stores for unit tests, as the service opens them: each in a directory of its own under one
// temporary directory, which goes when the tests of the file (or describe block) that asked for them are done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { DeadProperties } from '../../src/webdav/dead-properties.js';
import type { PropertyLimits } from '../../src/webdav/property-budget.js';

/** Opens a new, empty store on each call. */
export function propertyStores(): (limits?: PropertyLimits) => Promise<DeadProperties> {
  const dir = mkdtempSync(join(tmpdir(), 'dav-props-'));
  const opened: DeadProperties[] = [];
  after(async () => {
    await Promise.all(opened.map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  return async (limits) => {
    const store = await DeadProperties.open(join(dir, String(opened.length)), limits);
    opened.push(store);
    return store;
  };
}

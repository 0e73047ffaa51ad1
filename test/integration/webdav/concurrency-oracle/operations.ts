/**
 * The operations of the concurrency oracle, each through the service (WebDAV as the user) and as the SMB client
 * does it in one piece directly over SMB as the same user (the project's SmbClient): a save writes the file in place,
 * a MOVE over an existing file is one rename that replaces it, a COPY over one writes a complete copy beside it and
 * renames that over it (so that no direct operation loses the destination when it is refused half-way). A cell acts
 * on a destination and, for MOVE and COPY, a source in the same folder.
 */
import { Access, Disposition, tempNameBeside, type SmbShare } from '../../../../src/smb/index.js';
import type { DavClient } from '../dav-client.js';
import { digest } from '../write-oracle/effects.js';
import { answered, LARGE_BODY, SMALL_BODY, smbVerdict, writeInPlace, type Verdict } from '../write-oracle/operations.js';

/** Share paths of a cell's files. `destination` does not exist before a MOVE to a new name; `source` only for MOVE and COPY. */
export interface CellPaths {
  destination: string;
  source: string;
}

/** Content digests (write-oracle/effects.ts) of the destination and the source; null where nothing is. */
export interface Contents {
  destination: string | null;
  source: string | null;
}

/** Where the other client holds something: one of the files the operation acts on, or their folder. */
export type Place = 'destination' | 'source' | 'folder';

export interface ConcurrentOperation {
  name: string;
  /** The files a cell starts with. */
  starts: { destination: boolean; source: boolean };
  /** The files another client may hold (besides the folder): the ones the cell starts with. */
  places: Place[];
  proxy(dav: DavClient, p: CellPaths): Promise<Verdict>;
  direct(share: SmbShare, p: CellPaths): Promise<Verdict>;
  /** What the files hold once the operation is done. */
  done(before: Contents): Contents;
}

function put(label: string, body: Buffer): ConcurrentOperation {
  return {
    name: `PUT over existing${label}`,
    starts: { destination: true, source: false },
    places: ['destination'],
    proxy: async (dav, p) => answered(await dav.put(p.destination, body), 204),
    direct: (share, p) => smbVerdict(() => writeInPlace(share, p.destination, Disposition.OPEN, body)),
    done: (before) => ({ ...before, destination: digest(body) }),
  };
}

/** MOVE or COPY of the source onto the destination: `overwrite` T (over the existing one) or F (to a new name). */
function moveOrCopy(name: string, method: 'MOVE' | 'COPY', overwrite: boolean, direct: (share: SmbShare, p: CellPaths) => Promise<void>): ConcurrentOperation {
  return {
    name,
    starts: { destination: overwrite, source: true },
    places: overwrite ? ['destination', 'source'] : ['source'],
    proxy: async (dav, p) => answered(await dav.request(method, p.source, { headers: { destination: dav.url(p.destination), overwrite: overwrite ? 'T' : 'F' } }), overwrite ? 204 : 201),
    direct: (share, p) => smbVerdict(() => direct(share, p)),
    done: (before) => ({ destination: before.source, source: method === 'MOVE' ? null : before.source }),
  };
}

/**
 * The right to replace the destination, asked first: a Windows server refuses a rename over a file the user may not
 * delete, Samba does not check it (the service asks, webdav/replace.ts), so the direct side asks as Windows would.
 */
async function mayReplace(share: SmbShare, destination: string): Promise<void> {
  await share.checkAccess(destination, Access.DELETE);
}

async function moveOver(share: SmbShare, p: CellPaths): Promise<void> {
  await mayReplace(share, p.destination);
  await share.rename(p.source, p.destination, { replace: true });
}

/** A copy that never leaves the destination half-written: the whole copy beside it, then one rename over it. */
async function copyOver(share: SmbShare, p: CellPaths): Promise<void> {
  await mayReplace(share, p.destination);
  const content = await share.readFile(p.source);
  const beside = tempNameBeside(p.destination);
  await writeInPlace(share, beside, Disposition.CREATE, content);
  try {
    await share.rename(beside, p.destination, { replace: true });
  } catch (err) {
    await share.unlink(beside).catch(() => undefined);
    throw err;
  }
}

export const OPERATIONS: readonly ConcurrentOperation[] = [
  put('', SMALL_BODY),
  put(', large body', LARGE_BODY),
  moveOrCopy('MOVE over existing', 'MOVE', true, moveOver),
  moveOrCopy('COPY over existing', 'COPY', true, copyOver),
  moveOrCopy('MOVE to a new name', 'MOVE', false, (share, p) => share.rename(p.source, p.destination)),
  {
    name: 'DELETE',
    starts: { destination: true, source: false },
    places: ['destination'],
    proxy: async (dav, p) => answered(await dav.request('DELETE', p.destination), 204),
    direct: (share, p) => smbVerdict(() => share.unlink(p.destination)),
    done: (before) => ({ ...before, destination: null }),
  },
];

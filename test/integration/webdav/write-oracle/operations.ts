/**
 * The operations of the write oracle, each twice: through the service (WebDAV as the user) and as its equivalent
 * directly over SMB as the same user (the project's SmbClient), plus the smbclient command for the ones Samba's own
 * client can do in one command. Paths are share paths; `target` is a fixture file (or folder, for the operations
 * that create something in a folder).
 */
import { posix } from 'node:path';
import { endOfFileInfo } from '../../../../src/smb/fscc.js';
import { BLOCK_SIZE } from '../../../../src/smb/upload.js';
import { Access, CreateOptions, Disposition, FileInfoClass, SmbStatusError, type SmbShare } from '../../../../src/smb/index.js';
import { FileHandle } from '../../../../src/smb/open.js';
import { childElements, is, parseXml, textOf, type XmlElement } from '../../../../src/webdav/xml.js';
import type { DavClient } from '../dav-client.js';
import { sourceOf } from './fixture.js';

/** What one side answered: allowed or not, and how (an HTTP status with its error code, or an NT status). */
export interface Verdict {
  allowed: boolean;
  status: string;
}

export interface Operation {
  name: string;
  /** `file`: acts on a fixture file; `folder`: creates something in a fixture folder. */
  on: 'file' | 'folder';
  /** The trees of this operation hold a MOVE/COPY source for each file (fixture.sourceOf). */
  sources?: boolean;
  /** The paths the operation may change, for comparing its effect; the first is the file it leaves, if any. */
  touched(target: string): string[];
  /** Whether the operation leaves a file at touched()[0] (whose rights are then compared). */
  leavesFile: boolean;
  proxy(dav: DavClient, target: string): Promise<Verdict>;
  direct(share: SmbShare, target: string): Promise<Verdict>;
  /** The bytes a PUT writes (smbclient's `put` sends them from a local file). */
  body?: Buffer;
  /** The same operation as one smbclient command, for the sample that checks the direct verdicts. */
  smbclient?(target: string, localFile: string): string;
}

/** A page: the service writes it in the round trip that opens the target. */
export const SMALL_BODY = Buffer.from('vom Schreib-Orakel geschrieben\n');
/** More than one block: the service keeps it in a staging file next to the target until the commit. */
export const LARGE_BODY = Buffer.alloc(BLOCK_SIZE + 1024, 'vom Schreib-Orakel, groß\n');
const LOCK_BODY = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>write oracle</D:owner></D:lockinfo>';
const DAV = 'DAV:';
/** The namespace of the dead property a PROPPATCH sets. */
const ORACLE_NS = 'urn:write-oracle';
const PROPPATCH_BODY = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><o:notiz xmlns:o="${ORACLE_NS}">x</o:notiz></D:prop></D:set></D:propertyupdate>`;

const renamedOf = (target: string): string => `${posix.dirname(target)}/umbenannt-${posix.basename(target)}`;
/** `target` is `<tree>/<folder>/<file>`; its source is in the same tree. */
const sourceFor = (target: string): string => `${posix.dirname(posix.dirname(target))}/${sourceOf(target.split('/').slice(-2).join('/'))}`;
const smbPath = (path: string): string => path.replaceAll('/', '\\');
const quoted = (path: string): string => `"${smbPath(path)}"`;

/** The service's answer as a verdict: allowed only with the status the operation answers on success. */
export async function answered(res: Response, success: number): Promise<Verdict> {
  const body = await res.text();
  let code = '';
  try {
    code = (JSON.parse(body) as { error?: string }).error ?? '';
  } catch {
    // Not a JSON error (a 207 or an empty answer): the status says it all.
  }
  return { allowed: res.status === success, status: code ? `${res.status} ${code}` : `${res.status}` };
}

/**
 * A PROPPATCH's answer as a verdict: a 207 says in a propstat whether the property was set, so allowed only with
 * status 200 for the one property the body sets (`207 <its status>` otherwise); any other answer as `answered` says.
 */
async function proppatched(res: Response): Promise<Verdict> {
  if (res.status !== 207) return answered(res, 207);
  const propstats = childElements(parseXml(await res.text()))
    .filter((r) => is(r, DAV, 'response'))
    .flatMap((r) => childElements(r).filter((p) => is(p, DAV, 'propstat')));
  const sets = (p: XmlElement): boolean => childElements(p).some((prop) => is(prop, DAV, 'prop') && childElements(prop).some((e) => is(e, ORACLE_NS, 'notiz')));
  const mine = propstats.filter(sets);
  if (mine.length !== 1) throw new Error(`PROPPATCH answered ${mine.length} propstats for the property it sets`);
  const status = childElements(mine[0]!).find((e) => is(e, DAV, 'status'));
  const code = status ? textOf(status).split(' ')[1] : undefined;
  return { allowed: code === '200', status: `207 ${code ?? 'without a status'}` };
}

/** Runs the SMB steps; a refusal of the file server (any NT status) is a verdict, anything else an error. */
export async function smbVerdict(steps: () => Promise<unknown>): Promise<Verdict> {
  try {
    await steps();
    return { allowed: true, status: 'SUCCESS' };
  } catch (err) {
    if (err instanceof SmbStatusError) return { allowed: false, status: err.statusName };
    throw err;
  }
}

/** Opens `path` with exactly `access` (and `disposition`), runs `use` on the handle, closes it. */
async function withOpen(share: SmbShare, path: string, access: number, disposition: number, use: (handle: FileHandle) => Promise<void> = async () => undefined): Promise<void> {
  await share.withTree(async (tree) => {
    const handle = await FileHandle.open(tree, { name: smbPath(path), desiredAccess: access, disposition, createOptions: CreateOptions.NON_DIRECTORY_FILE });
    try {
      await use(handle);
    } finally {
      await handle.close();
    }
  });
}

/**
 * What a program does to write a file in place: open with FILE_WRITE_DATA, write from the start in order (one
 * block at a time, so that a write another client's byte-range lock refuses stops it there), set the end of file.
 */
export function writeInPlace(share: SmbShare, path: string, disposition: number, data: Buffer): Promise<void> {
  return withOpen(share, path, Access.FILE_WRITE_DATA, disposition, async (handle) => {
    const block = handle.tree.session.connection.maxWriteSize;
    for (let offset = 0; offset < data.length; offset += block) await handle.write(offset, data.subarray(offset, offset + block));
    await handle.setInfo(FileInfoClass.FileEndOfFileInformation, endOfFileInfo(data.length));
  });
}

/** PUT over an existing file and of a new one with `body`; the direct side writes the same bytes in place. */
function puts(label: string, body: Buffer): Operation[] {
  return [
    {
      name: `PUT over existing${label}`,
      on: 'file',
      touched: (t) => [t],
      leavesFile: true,
      body,
      proxy: async (dav, t) => answered(await dav.put(t, body), 204),
      direct: (share, t) => smbVerdict(() => writeInPlace(share, t, Disposition.OPEN, body)),
      smbclient: (t, local) => `put ${local} ${quoted(t)}`,
    },
    {
      name: `PUT new${label}`,
      on: 'folder',
      touched: (t) => [`${t}/neu.txt`],
      leavesFile: true,
      body,
      proxy: async (dav, t) => answered(await dav.put(`${t}/neu.txt`, body), 201),
      direct: (share, t) => smbVerdict(() => writeInPlace(share, `${t}/neu.txt`, Disposition.CREATE, body)),
      smbclient: (t, local) => `put ${local} ${quoted(`${t}/neu.txt`)}`,
    },
  ];
}

/**
 * MOVE or COPY of the target's own source (in `ablage/`) onto the target, Overwrite: T; the direct steps delete the
 * target as the user, then `putSource` puts the source there.
 */
function overExisting(method: 'MOVE' | 'COPY', putSource: (share: SmbShare, source: string, target: string) => Promise<void>): Operation {
  return {
    name: `${method} over existing`,
    on: 'file',
    sources: true,
    touched: (t) => [t, sourceFor(t)],
    leavesFile: true,
    proxy: async (dav, t) => answered(await dav.request(method, sourceFor(t), { headers: { destination: dav.url(t), overwrite: 'T' } }), 204),
    direct: (share, t) => smbVerdict(async () => {
      await share.unlink(t);
      await putSource(share, sourceFor(t), t);
    }),
  };
}

export const OPERATIONS: readonly Operation[] = [
  ...puts('', SMALL_BODY),
  ...puts(', large body', LARGE_BODY),
  {
    name: 'DELETE',
    on: 'file',
    touched: (t) => [t],
    leavesFile: false,
    proxy: async (dav, t) => answered(await dav.request('DELETE', t), 204),
    direct: (share, t) => smbVerdict(() => share.unlink(t)),
    smbclient: (t) => `del ${quoted(t)}`,
  },
  {
    name: 'MOVE to a new name',
    on: 'file',
    touched: (t) => [renamedOf(t), t],
    leavesFile: true,
    proxy: async (dav, t) => answered(await dav.request('MOVE', t, { headers: { destination: dav.url(renamedOf(t)), overwrite: 'F' } }), 201),
    direct: (share, t) => smbVerdict(() => share.rename(t, renamedOf(t))),
    smbclient: (t) => `rename ${quoted(t)} ${quoted(renamedOf(t))}`,
  },
  // RFC 4918 §9.9.3 and §9.8.4: the destination is deleted first; a MOVE renames the source onto its name, a COPY
  // is a new file there.
  overExisting('MOVE', (share, source, target) => share.rename(source, target)),
  overExisting('COPY', async (share, source, target) => writeInPlace(share, target, Disposition.CREATE, await share.readFile(source))),
  {
    name: 'MKCOL',
    on: 'folder',
    touched: (t) => [`${t}/neuer-ordner`],
    leavesFile: false,
    proxy: async (dav, t) => answered(await dav.request('MKCOL', `${t}/neuer-ordner`), 201),
    direct: (share, t) => smbVerdict(() => share.mkdir(`${t}/neuer-ordner`)),
    smbclient: (t) => `mkdir ${quoted(`${t}/neuer-ordner`)}`,
  },
  {
    // Dead properties are what SMB calls extended attributes.
    name: 'PROPPATCH',
    on: 'file',
    touched: (t) => [t],
    leavesFile: true,
    proxy: async (dav, t) => proppatched(await dav.request('PROPPATCH', t, { body: PROPPATCH_BODY })),
    direct: (share, t) => smbVerdict(() => withOpen(share, t, Access.FILE_WRITE_EA, Disposition.OPEN)),
  },
  {
    // A write lock reserves writing the content.
    name: 'LOCK',
    on: 'file',
    touched: (t) => [t],
    leavesFile: true,
    proxy: async (dav, t) => {
      const res = await dav.request('LOCK', t, { headers: { depth: '0', timeout: 'Second-600' }, body: LOCK_BODY });
      const token = res.headers.get('lock-token');
      const verdict = await answered(res, 200);
      if (token) await (await dav.request('UNLOCK', t, { headers: { 'lock-token': token } })).arrayBuffer();
      return verdict;
    },
    direct: (share, t) => smbVerdict(() => withOpen(share, t, Access.FILE_WRITE_DATA, Disposition.OPEN)),
  },
];

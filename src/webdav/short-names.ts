// A resource is its file, not its spelling. A file server that gives 8.3 short names (Samba by `mangled names`,
// Windows by `fsutil 8dot3name`) opens `JAXQN8~S.TXT` as `Jahresplanung-Klassenfahrt.txt` and `_DDHVH~1` as
// `.wiki`, while the proxy knows a resource by the path as spelled: its locks, the wiki's layout rules and the
// same-resource check of COPY and MOVE would not see the file behind a short name. So a request that names a file
// by its short name is refused before anything is done, and only names that could be one cost a question to the
// file server.
import { HttpError } from '../http/http-error.js';
import { SmbError } from '../smb/index.js';

/** The long names of the members of `folder` that `name` stands for, as the file server matches them (DavStorage). */
export type LongNameLookup = (folder: string, name: string) => Promise<string[]>;

/**
 * Whether `name` has the shape of an 8.3 short name that a file server made up: a `~` in at most 8 characters, then
 * optionally a dot and at most 3 more (Windows `JAHRES~1.TXT`, Samba `JAXQN8~S.TXT`). Letter case does not matter
 * to the file server, and the shape has none.
 */
export function couldBeShortName(name: string): boolean {
  const [base = '', extension = '', ...more] = name.split('.');
  return more.length === 0 && base.includes('~') && base.length <= 8 && extension.length <= 3;
}

/**
 * 400 short_name when a name in `path` is the short name of a member with another long name. A name that nothing
 * has, or that is a member's own long name (in any letter case), passes: SMB opens the member whose long name it is
 * before one whose short name it is. 403 when the file server does not let the user list a folder in which a name
 * could be a short name: what it stands for cannot be told, so the spelling is not taken.
 */
export async function refuseShortNames(path: string, longNamesOf: LongNameLookup): Promise<void> {
  const names = path === '' ? [] : path.split('/');
  for (const [i, name] of names.entries()) {
    if (!couldBeShortName(name)) continue;
    const folder = names.slice(0, i).join('/');
    const longNames = await longNamesOf(folder, name).catch((err: unknown) => {
      if (!(err instanceof SmbError && err.code === 'ACCESS_DENIED')) throw err;
      throw new HttpError(403, 'short_name_unknown', `'${name}' in '${path}' could be the 8.3 short name of another file, and the file server does not let you list '${folder || '/'}' to tell; name it by its long name`);
    });
    // Nothing has this name, so nothing is below it either.
    if (longNames.length === 0) return;
    if (longNames.some((long) => long.toLowerCase() === name.toLowerCase())) continue;
    const longName = longNames[0]!;
    const longPath = [...names.slice(0, i), longName, ...names.slice(i + 1)].join('/');
    throw new HttpError(400, 'short_name', `'${name}' in '${path}' is the 8.3 short name of '${longName}'; name it by its long name ('${longPath}'): locks, the wiki's layout rules and the checks of COPY and MOVE know a file by that`);
  }
}

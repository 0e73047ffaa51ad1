/**
 * What a file replaced by a temporary file and a rename keeps, as with Windows ReplaceFile: before the new
 * content takes the old name, the replaced file's DACL (its ACEs as they are, inherited ones included, and its
 * protected / auto-inherited flags) is written onto the temporary file, which the editor created and owns (an
 * owner may write the DACL). The owner and group stay the editor's: a non-administrator may not give a file to
 * someone else (Samba answers STATUS_INVALID_OWNER), so trying would cost a refused request on nearly every save.
 */
import { SmbError, SmbStatusError } from './errors.js';
import { Access, CreateOptions, Disposition, SecurityInformation } from './messages.js';
import { querySecurity, setSecurityByPath } from './open.js';
import { DACL_CONTROL_BITS, SdControl, type SecurityDescriptor } from './security-descriptor.js';
import type { Tree } from './tree.js';

/**
 * The DACL of the file at `target` (share path in backslash form), or null when there is no file to replace
 * (nothing there, or a folder). Fails with SECURITY_NOT_CARRIED when the server refuses it (READ_CONTROL).
 */
export async function replacedDacl(tree: Tree, target: string): Promise<SecurityDescriptor | null> {
  try {
    // READ_CONTROL alone: asking for more (SYNCHRONIZE) could be refused where the rights to save are given.
    return await querySecurity(
      tree,
      { name: target, desiredAccess: Access.READ_CONTROL, disposition: Disposition.OPEN, createOptions: CreateOptions.NON_DIRECTORY_FILE },
      SecurityInformation.DACL,
    );
  } catch (err) {
    if (err instanceof SmbError && (err.code === 'NOT_FOUND' || err.code === 'IS_A_DIRECTORY')) return null;
    throw notCarried(err, `cannot read the access rights of ${tree.shareName}\\${target}`);
  }
}

/** Writes the DACL of `replaced` (and the control bits that belong to it) onto the temporary file `temp`. */
export async function carryDacl(tree: Tree, temp: string, replaced: SecurityDescriptor): Promise<void> {
  const dacl: SecurityDescriptor = {
    revision: 1,
    // A replaced file without a DACL (everyone may do everything) passes that on as a NULL DACL.
    control: (replaced.control & DACL_CONTROL_BITS) | SdControl.DACL_PRESENT,
    owner: null,
    group: null,
    sacl: null,
    dacl: replaced.dacl,
  };
  try {
    // WRITE_DAC alone, which the owner holds whatever the DACL says: the temporary file inherited its folder's
    // ACEs, and a deny of reading there (which covers SYNCHRONIZE) must not stop the editor from carrying the DACL.
    await setSecurityByPath(tree, { name: temp, desiredAccess: Access.WRITE_DAC, disposition: Disposition.OPEN }, dacl, SecurityInformation.DACL);
  } catch (err) {
    throw notCarried(err, `cannot write the access rights onto the new content ${tree.shareName}\\${temp}`);
  }
}

/**
 * Carries the DACL of whatever file is at `target` now onto `temp` (a file that appeared at the name after the
 * save began); whether there was one.
 */
export async function carryCurrentDacl(tree: Tree, target: string, temp: string): Promise<boolean> {
  const dacl = await replacedDacl(tree, target);
  if (dacl) await carryDacl(tree, temp, dacl);
  return dacl !== null;
}

/** Refusals of the server become SECURITY_NOT_CARRIED; a lost connection stays what it is. */
function notCarried(err: unknown, what: string): unknown {
  if (!(err instanceof SmbStatusError)) return err;
  return new SmbError('SECURITY_NOT_CARRIED', `${what} (${err.statusName}), so the file is left unchanged`, { cause: err });
}

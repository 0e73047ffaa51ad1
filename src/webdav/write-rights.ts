// The file-server right each WebDAV state change needs, and the right to read
// that state back. The dav-state actor keeps locks and dead properties beside
// the share, so the file server never sees them; without a check of their
// own, read access would be enough to block every writer (LOCK) or fill the
// store (PROPPATCH), and a listing of the folder would show any file's dead
// properties (PROPFIND). Each is therefore asked of the file server as the
// requesting user, as the SMB operation it stands for would ask: an open with
// that access, closed at once.
import { Access } from '../smb/index.js';

export interface WriteRight {
  /** The desired access of the SMB CREATE that asks for it. */
  access: number;
  /** What it lets one do, for the 403 message. */
  means: string;
}

/**
 * A write lock reserves the right to change a resource: of a file, its content (the access an SMB client opens
 * it with to write); of a collection, its members (a depth-infinity lock also stops the creation of members).
 */
const WRITE_FILE: WriteRight = { access: Access.FILE_WRITE_DATA, means: 'write the file (FILE_WRITE_DATA)' };
const ADD_MEMBERS: WriteRight = {
  access: Access.FILE_ADD_FILE | Access.FILE_ADD_SUBDIRECTORY,
  means: 'add files and folders to it (FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY)',
};

/**
 * The right to lock a resource, and, for a depth-infinity lock on a collection, the right asked of every member it
 * covers (methods/lock.ts): a lock must not stop writes to a file its holder could not write.
 */
export function lockRight(isCollection: boolean): WriteRight {
  return isCollection ? ADD_MEMBERS : WRITE_FILE;
}

/** A folder whose members a depth-infinity lock would cover must be one the user may list (see methods/lock.ts). */
export const LIST_FOLDER: WriteRight = { access: Access.FILE_READ_DATA, means: 'list it (FILE_LIST_DIRECTORY)' };

/**
 * How many of one request's checks of members (one SMB round trip each) are in flight at once: enough to hide the
 * round trips' latency, as tree-ops.ts handles members, without one request filling the user's connection.
 */
export const MEMBER_CHECKS_AT_ONCE = 8;

/** A lock on a name that does not exist yet creates an empty file in its folder. */
export const CREATE_FILE: WriteRight = { access: Access.FILE_ADD_FILE, means: 'create files in it (FILE_ADD_FILE)' };

/**
 * Dead properties are client-defined name/value pairs stored with a resource: what SMB calls extended attributes
 * (FILE_FULL_EA_INFORMATION), written with FILE_WRITE_EA on files and folders alike. FILE_WRITE_ATTRIBUTES covers
 * only the fixed attributes (times, read-only, hidden), which are live properties here. Windows' "Read" permission
 * holds FILE_READ_EA without FILE_WRITE_EA; "Write" and "Modify" hold both.
 */
export const WRITE_PROPERTIES: WriteRight = { access: Access.FILE_WRITE_EA, means: 'write its extended attributes (FILE_WRITE_EA)' };
/**
 * Reading them needs FILE_READ_EA (SMB's QUERY_INFO of FileFullEaInformation): a PROPFIND shows a resource's dead
 * properties only to a user the file server grants it on that resource, whatever the depth.
 */
export const READ_PROPERTIES: WriteRight = { access: Access.FILE_READ_EA, means: 'read its extended attributes (FILE_READ_EA)' };

/**
 * What a MOVE or COPY over an existing destination needs besides deleting it, asked before the destination is
 * deleted: a move takes the source away (DELETE) and a copy reads a file; either adds a member to the destination's
 * folder. So an operation the file server would refuse deletes nothing first.
 */
export const MOVE_AWAY: WriteRight = { access: Access.DELETE, means: 'move it away (DELETE)' };
/** Deleting a file or folder: DELETE on it, which the file server also grants for FILE_DELETE_CHILD on its folder. */
export const DELETE_IT: WriteRight = { access: Access.DELETE, means: 'delete it (DELETE, or FILE_DELETE_CHILD on its folder)' };
export const READ_FILE: WriteRight = { access: Access.FILE_READ_DATA, means: 'read it (FILE_READ_DATA, of a folder: list it)' };
export function addMember(isCollection: boolean): WriteRight {
  return isCollection
    ? { access: Access.FILE_ADD_SUBDIRECTORY, means: 'add folders to it (FILE_ADD_SUBDIRECTORY)' }
    : CREATE_FILE;
}

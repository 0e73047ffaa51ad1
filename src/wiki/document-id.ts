/**
 * How a wiki page is named in the index: its document id and the key its folder is compared by. Apart from the
 * rendering (document.ts), so that the threads that only search or compare the index (the http-front, the
 * reconciler) do not load markdown-it.
 */
import { hash } from 'node:crypto';
import { normalizeSharePath } from './layout.js';

/** Comparable form of a share-relative path: SMB names are case-insensitive, macOS clients send NFD. */
function comparablePath(path: string): string {
  return normalizeSharePath(path).normalize('NFC').toLowerCase();
}

/** The key `folder_key` and `folder_ancestors` hold, and folder filters compare with. */
export function folderKey(folder: string): string {
  return comparablePath(folder);
}

/** Stable id of a page: sha256 (hex) of server, share and path, each compared case-insensitively. */
export function documentId(server: string, share: string, path: string): string {
  const key = [server.toLowerCase(), share.normalize('NFC').toLowerCase(), comparablePath(path)].join('\0');
  return hash('sha256', key, 'hex');
}

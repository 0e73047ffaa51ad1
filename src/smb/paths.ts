/**
 * API paths use forward slashes relative to the share root; SMB wants backslashes without a leading one.
 */
import { SmbError } from './errors.js';

const FORBIDDEN = /[\\\0<>:"|?*]/;

/** Normalised forward-slash path ('' for the share root), rejecting '..' and characters SMB forbids. */
export function normalizePath(path: string): string {
  if (typeof path !== 'string') throw new SmbError('INVALID_ARGUMENT', 'path must be a string');
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  for (const p of parts) {
    if (p === '..') throw new SmbError('INVALID_ARGUMENT', `path '${path}' must not contain '..'`);
    if (FORBIDDEN.test(p)) throw new SmbError('INVALID_ARGUMENT', `path '${path}' contains a character SMB does not allow`);
  }
  return parts.join('/');
}

export function toSmbPath(path: string): string {
  return normalizePath(path).replaceAll('/', '\\');
}

export function joinPath(dir: string, name: string): string {
  const d = normalizePath(dir);
  return d ? `${d}/${name}` : name;
}

export function splitPath(path: string): { dir: string; base: string } {
  const p = normalizePath(path);
  const i = p.lastIndexOf('/');
  return { dir: i < 0 ? '' : p.slice(0, i), base: i < 0 ? p : p.slice(i + 1) };
}

/**
 * Where a process's resident memory lies, by kind of mapping, from /proc/<pid>/smaps: what /proc/<pid>/status only
 * gives as anonymous and file-backed. The kinds are told apart by shape, as the allocators lay them out on x86-64
 * Linux (the figures are approximate where a mapping could be of two kinds):
 * - V8 heap pages: anonymous read-write mappings of exactly 256 KiB, V8's page size (large objects get larger ones,
 *   counted under other);
 * - V8 code: anonymous executable mappings (the compiled code of every thread);
 * - glibc malloc: the main arena (`[heap]`) and the arenas of the other threads, each in a region aligned to 64 MiB
 *   (glibc's arena size on 64-bit) of which the part in use is mapped read-write;
 * - file-backed: the node binary and the shared libraries (their code and read-only data, shared with other
 *   processes that map the same files);
 * - other anonymous: thread stacks, large malloc blocks mapped on their own, V8's large objects.
 */
import { readFileSync } from 'node:fs';

export interface MemoryMap {
  /** Resident bytes by kind. */
  v8HeapPages: number;
  v8Code: number;
  mallocArenas: number;
  fileBacked: number;
  otherAnonymous: number;
  /** Arenas counted (the main one included). */
  arenas: number;
}

const V8_PAGE = 256 * 1024;
const ARENA_ALIGNMENT = 64 * 1024 * 1024;

interface Mapping {
  start: number;
  end: number;
  perms: string;
  name: string;
  rss: number;
}

function mappings(pid: number): Mapping[] {
  const found: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      found.push({ start: parseInt(header[1]!, 16), end: parseInt(header[2]!, 16), perms: header[3]!, name: header[4]!.trim(), rss: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && found.length > 0) found[found.length - 1]!.rss = Number(rss[1]) * 1024;
  }
  return found;
}

/** A thread arena: its used part, read-write from a 64 MiB boundary, then (unless all in use) the reserved rest up to the next. */
function isThreadArena(m: Mapping, next: Mapping | undefined): boolean {
  if (m.name !== '' || m.start % ARENA_ALIGNMENT !== 0 || !m.perms.startsWith('rw')) return false;
  const end = m.start + ARENA_ALIGNMENT;
  return m.end === end || (next !== undefined && next.start === m.end && next.end === end && next.perms.startsWith('---'));
}

export function memoryMap(pid: number): MemoryMap {
  const map: MemoryMap = { v8HeapPages: 0, v8Code: 0, mallocArenas: 0, fileBacked: 0, otherAnonymous: 0, arenas: 0 };
  const all = mappings(pid);
  for (const [i, m] of all.entries()) {
    if (m.name === '[heap]' || isThreadArena(m, all[i + 1])) {
      map.mallocArenas += m.rss;
      map.arenas++;
    } else if (m.name.startsWith('/')) map.fileBacked += m.rss;
    else if (m.name !== '' && m.name !== '[stack]') map.otherAnonymous += m.rss; // [vdso], io_uring rings and the like
    else if (m.perms.includes('x')) map.v8Code += m.rss;
    else if (m.perms.startsWith('rw') && m.end - m.start === V8_PAGE) map.v8HeapPages += m.rss;
    else map.otherAnonymous += m.rss;
  }
  return map;
}

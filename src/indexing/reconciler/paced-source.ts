/** A share's pages read at the pacer's pace (src/pacing/pacer.ts); listings are few and go at once. */
import type { Pacer } from '../../pacing/pacer.js';
import type { ShareSource } from './share-pass.js';

export function pacedSource(source: ShareSource, pacer: Pacer): ShareSource {
  return { ...source, readPage: (path, known) => pacer.run(() => source.readPage(path, known)) };
}

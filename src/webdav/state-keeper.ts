// What the WebDAV methods ask of the one thread that keeps locks and dead properties for every front (the dav-state
// actor serves exactly this: actors/dav-state/protocol.ts). Each piece is declared beside the WebDAV concept it keeps.
import type { PropertyKeeper } from './dead-properties.js';
import type { LockKeeper } from './locks.js';
import type { ResourceStateKeeper } from './properties.js';
import type { StateHintSource } from './state-hint.js';
import type { WriteGateService } from './write-check.js';

/**
 * The shared counters (`hint`), the lock check and lease of a write (`writeGate`, `release`), the lock table, the
 * dead properties, and both for whole resources (describe, removed, moved).
 */
export type DavStateKeeper = StateHintSource & WriteGateService & LockKeeper & PropertyKeeper & ResourceStateKeeper;

// The checks before a WebDAV write: locks on the resources it changes (423
// unless the If header submits their tokens, RFC 4918 §7), the If header
// (RFC 4918 §10.4) and the RFC 9110 preconditions (412), and the write lease
// that serializes conditional writes of one resource. Locks and shared
// leases are dav-state's; with a single http-front the lease is local.
import { HttpError } from '../http/http-error.js';
import { hrefOf, resourceKey, type DavLocation, type DavResource } from './dav-path.js';
import { evaluateIf, ifResources, submittedTokens, type IfList, type IfResourceState } from './if-header.js';
import type { LeaseQueue } from './leases.js';
import type { WriteTarget } from './locks.js';
import { evaluatePreconditions, hasPreconditions } from './preconditions.js';
import { entryEtag, type DavEntry } from './properties.js';
import { destinationPath } from './requests.js';
import type { DavStateHints } from './state-hint.js';

export interface WriteGate {
  principal: string;
  targets: WriteTarget[];
  /** Lock tokens the request submits (in its If header). */
  tokens: string[];
  /** Resources whose covering lock tokens the If header evaluation needs. */
  ask: DavResource[];
  /**
   * Serialize with other gated writes of this resource: the answer comes only
   * once no other holder of the lease is left, and the caller must `release`.
   */
  lease?: DavResource;
}

export interface WriteGateResult {
  /** The root of a lock whose token the request did not submit (answer 423). */
  blockedBy?: DavResource;
  /** Per `ask` entry, the tokens of the locks covering it. */
  lockTokens: string[][];
  /** Present when a lease was asked for and granted. */
  leaseId?: number;
}

/** What the checks ask of dav-state, which holds the locks and the shared leases (actors/dav-state/protocol.ts). */
export interface WriteGateService {
  /** Lock check of a write (and optionally its per-resource lease). */
  writeGate(gate: WriteGate): Promise<WriteGateResult>;
  release(leaseId: number): Promise<void>;
}

/** What the checks need of the thread. */
export interface WriteCheckDeps {
  readonly davState: WriteGateService;
  readonly hints: Pick<DavStateHints, 'counts'>;
  /** Leases held in this thread when it is the only http-front; undefined: dav-state holds them. */
  readonly localLeases: LeaseQueue | undefined;
  /** The share path a URI names on this service, if any (for the If header's tags). */
  locate(rawPath: string): DavLocation | undefined;
}

/** What the checks need of the request. */
export interface WriteRequest {
  readonly ex: { readonly method: string; readonly headers: Readonly<Record<string, string>> };
  readonly path: string;
  /** Who owns the locks the request may submit. */
  readonly principal: string;
  readonly storage: { stat(path: string): Promise<DavEntry | null> };
  /** A resource on the request's share; the request resource without a path. */
  resource(path?: string): DavResource;
  /** The parsed If header; undefined without one. */
  ifHeader(): IfList[] | undefined;
}

export interface WriteCheckOptions {
  /** Serialize with other leased writes of the request resource until `release`. */
  lease?: boolean;
  /** Reads the request resource once the lease is held. */
  state?: () => Promise<DavEntry | null>;
}

export interface WriteCheck {
  /** The request resource as `state` read it (undefined when not asked). */
  current: DavEntry | null | undefined;
  release(): void;
}

/**
 * The checks before a write: locks on `targets` (423 unless the If header submits their tokens), the
 * If header and RFC 9110 preconditions (412). `state` reads the request resource after the lease (when
 * `lease`) is taken. Call `release` when the write is done.
 */
export async function checkWrite(deps: WriteCheckDeps, request: WriteRequest, targets: WriteTarget[], options: WriteCheckOptions = {}): Promise<WriteCheck> {
  const lists = request.ifHeader();
  const { locks } = await deps.hints.counts();
  const tags = lists ? ifResources(lists) : [];
  const asked = tags.map((tag) => resolveTag(deps, request, tag));
  const local = options.lease ? deps.localLeases : undefined;
  const localLease = local ? await local.acquire(resourceKey(request.resource())) : undefined;
  const sharedLease = options.lease && !local;
  let gate: WriteGateResult | undefined;
  const release = () => {
    if (local && localLease !== undefined) local.release(localLease);
    if (gate?.leaseId !== undefined) deps.davState.release(gate.leaseId).catch(() => undefined);
  };
  try {
    if (locks > 0 || lists !== undefined || sharedLease) {
      gate = await deps.davState.writeGate({
        principal: request.principal,
        targets,
        tokens: lists ? submittedTokens(lists) : [],
        ask: asked.filter((r) => r !== undefined),
        ...(sharedLease ? { lease: request.resource() } : {}),
      });
    }
    const current = options.state ? await options.state() : undefined;
    const { method, headers } = request.ex;
    if (hasPreconditions(headers)) {
      const known = current === undefined ? await request.storage.stat(request.path) : current;
      const outcome = evaluatePreconditions(method, known && !known.isCollection ? { etag: entryEtag(known), mtimeMs: known.mtimeMs } : null, headers);
      if (outcome !== 'proceed') throw new HttpError(412, 'precondition_failed', `a precondition (If-Match, If-None-Match, ...) does not hold for ${request.path || '/'}`);
    }
    if (lists) {
      const known = asked.filter((r) => r !== undefined);
      const states = new Map<string | undefined, IfResourceState>();
      for (const [i, tag] of tags.entries()) {
        const resource = asked[i];
        const entry = resource === undefined ? null : tag === undefined && current !== undefined ? current : await request.storage.stat(resource.path);
        states.set(tag, {
          etag: entry && !entry.isCollection ? entryEtag(entry) : null,
          lockTokens: new Set(resource ? gate?.lockTokens[known.indexOf(resource)] : []),
        });
      }
      if (!evaluateIf(lists, (tag) => states.get(tag)!)) throw new HttpError(412, 'precondition_failed', 'the If header does not hold');
    }
    if (gate?.blockedBy) {
      throw new HttpError(423, 'locked', `${request.path || '/'} is locked (lock on ${hrefOf(gate.blockedBy.share, gate.blockedBy.path, false)}); submit its lock token in the If header`);
    }
    return { current, release };
  } catch (err) {
    release();
    throw err;
  }
}

/** A resource the If header tags: on the request's share, or undefined (then none of its conditions on locks or tags hold). */
function resolveTag(deps: WriteCheckDeps, request: WriteRequest, tag: string | undefined): DavResource | undefined {
  if (tag === undefined) return request.resource();
  try {
    const location = deps.locate(destinationPath(tag));
    return location && location.share === request.resource().share ? request.resource(location.path) : undefined;
  } catch {
    return undefined;
  }
}

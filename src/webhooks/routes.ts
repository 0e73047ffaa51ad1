// POST /edu-api/webhook: the webhook intake. Key checks use this thread's
// replica of the clients; the event id is checked and inserted in the dedupe
// actor's shared ring right here (no message per event), or, when the proxies
// share state, by the dedupe actor in Elasticsearch (one call per event-loop
// turn); service-eventhandler events go to the webhook-store, batched per
// event-loop turn.
import type { Logger } from '../common/logger.js';
import { CallBatcher } from '../common/call-batcher.js';
import type { Config } from '../config/index.js';
import type { Router } from '../http/router.js';
import type { PeerLink } from '../runtime/actor.js';
import { HttpError } from '../http/http-error.js';
import { PeerMemory } from '../runtime/peer-memory.js';
import { ActorUnavailableError, type Remote } from '../runtime/rpc.js';
import type { SharedEventIdSource } from './cluster-event-ids.js';
import { eventIdsInCluster } from './event-id-place.js';
import { DedupeRing, DedupeRingRetiredError, type DedupeRingSource } from './dedupe-ring.js';
import { dispatchWebhookEvent, type WebhookDispatchDeps } from './dispatch.js';
import { WEBHOOK_OK_JSON } from './errors.js';
import { handleWebhookRequest, type AcceptedEventIds, type WebhookHandlerDeps } from './handle.js';
import type { WebhookClientLookup } from './key-index.js';
import type { NewUserEvent, UserEventSink } from './user-events.js';
import { unavailableAs503 } from '../runtime/unavailable-as-503.js';

interface WebhookRouteDeps {
  readonly config: Pick<Config, 'http' | 'webhooks' | 'cluster'>;
  /** This front's instance name (its lock tag in the dedupe ring is per front). */
  readonly front: string;
  readonly clients: WebhookClientLookup;
  readonly dedupe: Remote<DedupeRingSource & SharedEventIdSource>;
  readonly dedupeLink: PeerLink;
  readonly store: Remote<UserEventSink>;
  readonly log: Logger;
}

const OK_HEADERS = { 'content-type': 'application/json' };

export function registerWebhookRoutes(router: Router, deps: WebhookRouteDeps): void {
  // Cached events of one event-loop turn travel together: one message per burst, not per request.
  const cachedEvents = new CallBatcher(async (events: NewUserEvent[]) => {
    await deps.store.addUserEvents(events);
    return events.map(() => undefined);
  });
  const dispatch: WebhookDispatchDeps = {
    userEvents: { add: (username, event) => cachedEvents.call({ username, event }) },
    logger: deps.log,
    maxUserEventSize: deps.config.webhooks.user_events.max_event_size,
  };
  const intake: WebhookHandlerDeps = {
    registry: deps.clients,
    intake: { maxTimestampAgeMs: deps.config.webhooks.max_timestamp_age },
    eventIds: eventIdsInCluster(deps.config) ? clusterEventIds(deps.dedupe) : sharedEventIds(deps),
    process: (event) => dispatchWebhookEvent(event, dispatch),
  };
  router.add('POST', '/edu-api/webhook', async (ex) => {
    try {
      await handleWebhookRequest({ headers: ex.headers, body: () => ex.readBody(), nowMs: Date.now() }, intake);
    } catch (err) {
      throw unavailableAs503(err);
    }
    ex.send(200, WEBHOOK_OK_JSON, OK_HEADERS);
  }, { bodyLimit: deps.config.http.max_body });
}

/** The dedupe actor's ring, attached once per incarnation; while the actor is down every use fails (503). */
function sharedEventIds(deps: WebhookRouteDeps): AcceptedEventIds {
  const ring = new PeerMemory({
    peer: 'dedupe',
    link: deps.dedupeLink,
    fetch: async () => new DedupeRing(await deps.dedupe.sharedRing(deps.front)),
    replaced: (view) => view.retired,
  });
  /** Runs `use` on the current ring; again on the new one when the actor replaced it meanwhile. */
  const withRing = async <T>(use: (view: DedupeRing) => T): Promise<T> => {
    for (;;) {
      try {
        return use(await ring.get());
      } catch (err) {
        if (!(err instanceof DedupeRingRetiredError)) throw err;
      }
    }
  };
  return {
    seen: (id) => withRing((view) => view.has(id)),
    admit: (id) => withRing((view) => view.checkAndInsert(id)),
    forget: (id) => withRing((view) => view.forget(id)),
  };
}

/**
 * The event ids every proxy shares, through the dedupe actor: the admits of one turn in one call (one _bulk). A
 * failure of the cluster is a 503 naming no node (the dedupe actor logs it): the sender retries, and no id counts
 * as taken that Elasticsearch does not hold.
 */
export function clusterEventIds(dedupe: Remote<SharedEventIdSource>): AcceptedEventIds {
  const admits = new CallBatcher((events: { eventId: string; clientId: string }[]) => dedupe.admitShared(events));
  const admitted = async (eventId: string, clientId: string) => {
    const admission = await admits.call({ eventId, clientId });
    if (typeof admission === 'object') throw SHARED_STATE_UNAVAILABLE;
    return admission === 'admitted';
  };
  const asked = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ActorUnavailableError) throw err;
      throw SHARED_STATE_UNAVAILABLE;
    }
  };
  return {
    seen: (eventId) => asked(() => dedupe.seenShared(eventId)),
    admit: (eventId, clientId) => asked(() => admitted(eventId, clientId)),
    forget: (eventId) => asked(() => dedupe.forgetShared(eventId)),
  };
}

const SHARED_STATE_UNAVAILABLE = new HttpError(503, 'shared_state_unavailable',
  'the event ids the proxies share (cluster.shared_state) cannot be checked now; try again shortly', { 'retry-after': '1' });

// The actor context's types refuse what would fail at run time: handlers that serve a method their actor's
// protocol does not declare (a peer could call it), handlers that leave one out or no handlers at all, and a call to
// (or the link state of) a peer kind the supervisor links no channel to (ACTOR_LINKS). Each `@ts-expect-error` below fails `npm run build` when the line
// under it compiles, so this file is the test; it is compiled and never run.
import type { ActorContextOf } from '../../../actors/kinds.js';
import { runActor } from '../../../src/runtime/actor.js';
import type { MetricSnapshot } from '../../../src/metrics/snapshot.js';

const metrics = async (): Promise<MetricSnapshot> => [];
const sharedRing = async () => ({ memory: new SharedArrayBuffer(8), holder: 1 });
const shared = { admitShared: async () => [], seenShared: async () => false, forgetShared: async () => undefined };

const typeChecks = [
  // The dedupe actor serving its protocol: compiles.
  () => runActor(async (_ctx: ActorContextOf<'dedupe'>) => ({ handlers: { sharedRing, ...shared, metrics } })),
  // A method besides the protocol (as dav-state's stats, publish and retire were).
  // @ts-expect-error stats is no method of DedupeProtocol
  () => runActor(async (_ctx: ActorContextOf<'dedupe'>) => ({ handlers: { sharedRing, ...shared, metrics, stats: () => ({}) } })),
  // The same, on an instance of a class with an extra public method.
  () => {
    class DedupeService { sharedRing = sharedRing; admitShared = shared.admitShared; seenShared = shared.seenShared; forgetShared = shared.forgetShared; metrics = metrics; retire(): void {} }
    // @ts-expect-error retire is no method of DedupeProtocol
    runActor(async (_ctx: ActorContextOf<'dedupe'>) => ({ handlers: new DedupeService() }));
  },
  // A protocol method left out.
  // @ts-expect-error sharedRing is missing
  () => runActor(async (_ctx: ActorContextOf<'dedupe'>) => ({ handlers: { ...shared, metrics } })),
  // An actor that serves nothing: a peer's every call would fail at run time.
  // @ts-expect-error handlers is missing
  () => runActor(async (_ctx: ActorContextOf<'dedupe'>) => ({ health: () => ({}) })),
  // Peers: the kinds linked to the actor's own, and the supervisor.
  (ctx: ActorContextOf<'webhook-store'>) => {
    void ctx.peer('ldap-resolver').viewerEpoch;
    void ctx.peer('http-front#2').replaceWebhookClients;
    void ctx.peer('supervisor').health;
    // @ts-expect-error the webhook-store has no channel to the dedupe actor
    void ctx.peer('dedupe');
    // @ts-expect-error nor to the reconciler
    void ctx.peer('reconciler#2');
  },
  (ctx: ActorContextOf<'dav-state'>) => {
    void ctx.peer('http-front#3');
    // @ts-expect-error the dav-state actor is linked to the fronts only
    void ctx.peer('ldap-resolver');
  },
  // A link's state, of the same peers only: a link to a kind it has no channel to would never connect.
  (ctx: ActorContextOf<'http-front'>) => {
    void ctx.link('reconciler').connected;
    void ctx.link('ldap-resolver#2').incarnation;
    // @ts-expect-error the fronts have no channel to one another
    void ctx.link('http-front#2');
    // @ts-expect-error nor is any name a peer
    void ctx.link('reconciller');
  },
];
void typeChecks;

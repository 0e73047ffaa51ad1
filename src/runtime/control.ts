// Messages between the supervisor and one actor thread, over the worker's
// parentPort. Requests between actors use RpcChannel over ports that the
// supervisor hands out with `connect`.
import type { MessagePort } from 'node:worker_threads';
import type { WireError } from './rpc.js';
import type { PoolHealth } from './worker-pool.js';

/** What an actor reports about itself when pinged. */
export type ActorDetails = Record<string, unknown>;

export type SupervisorToActor =
  /** Start serving: a thread loads the actor's code and waits for this (spare threads wait for a crash). */
  | { type: 'activate' }
  /** A channel to a peer (another actor, or `supervisor`); replaces an older one of the same name. */
  | { type: 'connect'; peer: string; port: MessagePort }
  /** The peer died: fail its pending calls now. A new `connect` follows when it is back. */
  | { type: 'disconnect'; peer: string; reason: string }
  | { type: 'ping'; id: number }
  /** Stop taking work, finish what is in flight within `timeoutMs`, then exit. */
  | { type: 'stop'; timeoutMs: number };

export type ActorToSupervisor =
  | { type: 'ready' }
  /** `pools`: the health of the worker pools the actor owns. */
  | { type: 'pong'; id: number; details: ActorDetails; pools: Record<string, PoolHealth> }
  /** The actor failed to start or crashed; it exits right after this message. */
  | { type: 'failed'; phase: 'start' | 'run'; error: WireError }
  | { type: 'stopped' };

/** Secrets read once by the supervisor and handed to the threads that need them. */
export interface ServiceSecrets {
  /** Password of smb.indexer_service_account; absent while the wiki feature is off. */
  indexerPassword?: string;
  /** Keytab of smb.indexer_service_account (smb.indexer_service_account.keytab_file): its SMB logons use Kerberos keys. */
  indexerKeytab?: Uint8Array;
  /** Keytab of kerberos.delegation (its keytab_file): the service account that reaches SMB in users' names. */
  delegationKeytab?: Uint8Array;
  /** Credentials and CA of a secured Elasticsearch (elasticsearch.auth, elasticsearch.tls); absent for the sidecar. */
  elasticsearch?: {
    auth?: { apiKey: string } | { username: string; password: string };
    caCertificate?: string;
  };
}

/** What a worker receives as workerData. */
export interface ActorStartData<C = unknown> {
  /** Unique name, e.g. `http-front` or `http-front#2` when several run (instance-names.ts). */
  name: string;
  config: C;
  secrets: ServiceSecrets;
}

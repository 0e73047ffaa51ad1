// What other actors ask an http-front thread, declared once for both ends: the webhook-store keeps the thread's
// replica of the webhook clients (src/webhooks/replication.ts).
import type { ReplicaLink } from '../../src/webhooks/replication.js';

export interface HttpFrontProtocol extends ReplicaLink {}

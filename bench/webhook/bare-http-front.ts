// The service's HTTP layer alone: the http-front's HttpServer and Router with
// one route that reads the body (as the intake's body limit makes it) and
// answers the intake's success body, without any webhook logic or actor.
// The gap to the service shows what the intake itself costs; the gap to bare
// uWebSockets.js what the HTTP layer costs.
//   node bare-http-front.js <port> <uws|node>   (the transport, as the http-front chooses it)
import { HttpServer } from '../../actors/http-front/server.js';
import type { HttpTransport } from '../../actors/http-front/transport.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/common/logger.js';
import { WEBHOOK_OK_JSON } from '../../src/webhooks/errors.js';
import { uwsTransport } from '../../test/support/transports.js';

const port = Number(process.argv[2]);
const transport: HttpTransport = process.argv[3] === 'uws' ? uwsTransport() : { name: 'node' };
const router = new Router();
router.add('POST', '/edu-api/webhook', async (ex) => {
  await ex.readBody();
  ex.send(200, WEBHOOK_OK_JSON, { 'content-type': 'application/json' });
}, { bodyLimit: 1024 * 1024 });
const http = { host: '127.0.0.1', port, max_body: 1024 * 1024, header_timeout: 10_000, body_timeout: 30_000 };
await HttpServer.listen(http, router, createLogger({ log: { level: 'silent' } }), transport);
console.log('listening');

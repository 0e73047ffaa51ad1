// The baseline: a bare uWebSockets.js hello-world on one thread that answers
// every request with the intake's success body. `node bare-uws.js <port>`, on a Node for which a uWS build loads.
import { uwsTransport } from '../../test/support/transports.js';

const { uws } = uwsTransport();
const port = Number(process.argv[2]);
uws.App()
  .any('/*', (res) => {
    res.cork(() => {
      res.writeHeader('content-type', 'application/json');
      res.end('{"status":"ok"}');
    });
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) throw new Error(`cannot listen on ${port}`);
    console.log('listening');
  });

// The baseline: a bare node:http hello-world that answers every request with
// the intake's success body. `node bare-node.js <port>`.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
}).listen(port, '127.0.0.1', () => console.log('listening'));

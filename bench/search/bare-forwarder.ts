/**
 * The floor of any hop in front of Elasticsearch: a bare node:http server that passes each request's method, path
 * and body to Elasticsearch through an undici Pool and its answer back byte for byte — no login, no viewer, no
 * parsing. `node bare-forwarder.js <port> <elasticsearch-url>`. The search bench measures it beside the service.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [port, elasticsearch] = process.argv.slice(2);
/** As many connections as the bench keeps in flight. */
const pool = new Pool(elasticsearch!, { connections: 8 });

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    pool.request({ method: 'POST', path: req.url!, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) }).then(
      async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      },
      (error: unknown) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'elasticsearch_unreachable', message: String(error) }));
      },
    );
  });
}).listen(Number(port), '127.0.0.1', () => console.log('listening'));

// A normal exit on SIGTERM, so that a --cpu-prof profile is written (bench/request-profile.ts).
process.on('SIGTERM', () => process.exit(0));

import { createServer } from 'node:http';

/** The runtime's limit: node:http reading the whole body and answering 200. */
const port = Number(process.env.PORT ?? 3100);
const answer = Buffer.from('{"status":"accepted"}');

const server = createServer((req, res) => {
  let size = 0;
  req.on('data', (chunk: Buffer) => (size += chunk.length));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
  });
});
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

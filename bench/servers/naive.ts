import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import type postgres from 'postgres';
import { connectPostgres } from '../../src/db/connect.js';

/**
 * What most integrators write: Express 5, express.json, an HMAC check over the raw body and
 * one INSERT per request, answered after the INSERT. No dedupe, no queue.
 */
const port = Number(process.env.PORT ?? 3101);
const secret = process.env.POSTBACK_SECRET ?? '';
const sql = connectPostgres(process.env.DATABASE_URL ?? '', {
  max: Number(process.env.DB_POOL_MAX ?? 10),
  onnotice: () => {},
});

await sql`create table if not exists postbacks (
  id bigserial primary key,
  sale_id bigint not null,
  status text not null,
  payload jsonb not null,
  received_at timestamptz not null default now())`;

type RawRequest = IncomingMessage & { rawBody?: Buffer };

const app = express();
app.use(
  express.json({
    limit: '64kb',
    verify: (req, _res, buf) => {
      (req as RawRequest).rawBody = buf;
    },
  }),
);
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.post('/postbacks', async (req, res) => {
  const raw = (req as RawRequest).rawBody;
  const signature = req.get('x-signature') ?? '';
  const expected = createHmac('sha256', secret)
    .update(raw ?? '')
    .digest();
  const given = Buffer.from(signature, 'hex');
  if (!raw || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    res.status(401).json({ error: 'bad signature' });
    return;
  }
  const body = req.body as { id: number; status: string };
  try {
    await sql`insert into postbacks (sale_id, status, payload)
              values (${body.id}, ${body.status}, ${sql.json(req.body as postgres.JSONValue)})`;
    res.json({ status: 'accepted' });
  } catch {
    res.status(503).json({ error: 'try later' });
  }
});
const server = app.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => void sql.end({ timeout: 5 }).then(() => process.exit(0)));
  server.closeAllConnections();
});

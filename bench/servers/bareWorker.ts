import { Worker } from 'bullmq';
import { DEFAULT_WORKER_CONCURRENCY } from '../../src/config/config.js';
import { connectPostgres } from '../../src/db/connect.js';

/**
 * The worker baseline: a bare BullMQ worker, the same concurrency as paymirror's, doing one
 * `INSERT … ON CONFLICT DO UPDATE` per job on a table shaped like `sales`. No inbox, no
 * history, no state machine: the floor the real worker's cost is measured against.
 */
const sql = connectPostgres(process.env.DATABASE_URL ?? '', {
  max: Number(process.env.DB_POOL_MAX ?? 10),
  onnotice: () => {},
});
const worker = new Worker(
  process.env.QUEUE_NAME ?? 'bare',
  async (job) => {
    const sale = job.data as {
      id: number;
      status: string;
      amountCents: number;
      feeCents: number;
      paymentMethod: string;
      customer: Record<string, string>;
    };
    await sql`
      insert into bare_sales (id, status, amount_cents, fee_cents, payment_method, customer, updated_at)
      values (${sale.id}, ${sale.status}, ${sale.amountCents}, ${sale.feeCents},
              ${sale.paymentMethod}, ${sql.json(sale.customer)}, now())
      on conflict (id) do update set status = excluded.status, updated_at = excluded.updated_at`;
  },
  {
    connection: {
      url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      maxRetriesPerRequest: null,
    },
    prefix: process.env.QUEUE_PREFIX ?? 'bare',
    concurrency: Number(process.env.WORKER_CONCURRENCY ?? DEFAULT_WORKER_CONCURRENCY),
    removeOnComplete: { count: 0 },
  },
);
process.stdout.write('bare worker ready\n');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void worker
      .close()
      .then(() => sql.end({ timeout: 5 }))
      .then(() => process.exit(0));
  });
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAuthenticObservation } from '../../src/domain/observationOrder.js';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import {
  isFinalSaleStatus,
  isSaleStatusAllowed,
  SALE_EDGES,
  type PaymentMethod,
  type SaleStatus,
} from '../../src/domain/saleMachine.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import { dbNow, noticeInput, saleNotice, saleRead, saleRecord } from '../support/mirrorInputs.js';
import { useTestDatabase } from '../support/services.js';

// A read never moves a record out of a final status that a signed postback or a confirmed
// webhook set, however deliveries and lagging reads interleave, and a reconciliation read of
// the gateway's current status still brings the mirror to it (docs/reconciliation.md).
const test = useTestDatabase();

const METHODS = { 1: 'PIX', 2: 'CREDIT_CARD' } as const satisfies Record<number, PaymentMethod>;
type SaleId = keyof typeof METHODS;
const SALE_IDS = [1, 2] as const;

/** The gateway's truth takes one step of its path every STEP seconds. */
const STEP = 60;
const MAX_SKEW_MS = 5_000;
/** How many seconds later than the event before it an event's reads begin. */
const READ_PACE = 10;

function allowedEdges(method: PaymentMethod, status: SaleStatus): SaleStatus[] {
  return SALE_EDGES[status].filter((to) => isSaleStatusAllowed(method, to));
}

/** A walk along the sale machine from PENDENTE, ended by an edge into a final status. */
function truthPath(method: PaymentMethod, choices: readonly number[]): SaleStatus[] {
  const path: SaleStatus[] = ['PENDENTE'];
  let status: SaleStatus = 'PENDENTE';
  for (const choice of choices) {
    if (isFinalSaleStatus(status)) break;
    const edges = allowedEdges(method, status);
    status = edges[choice % edges.length] ?? status;
    path.push(status);
  }
  while (!isFinalSaleStatus(status)) {
    const edges = allowedEdges(method, status);
    status = edges.find(isFinalSaleStatus) ?? edges[0] ?? status;
    path.push(status);
  }
  return path;
}

/** The truth's status at `second` (its step k happens at k * STEP). */
function truthAt(path: readonly SaleStatus[], second: number): SaleStatus {
  const step = Math.min(Math.max(0, Math.floor(second / STEP)), path.length - 1);
  return path[step] ?? 'PENDENTE';
}

const saleId = fc.constantFrom<SaleId>(...SALE_IDS);
const step = fc.nat({ max: 8 });
// Deliveries arrive within seconds; a replica may be minutes behind.
const delay = fc.nat({ max: 30 });
const lag = fc.nat({ max: 4 * STEP });
const skew = fc.integer({ min: -MAX_SKEW_MS, max: MAX_SKEW_MS });
const event = fc.oneof(
  fc.record({
    kind: fc.constant('postback' as const),
    id: saleId,
    step,
    delay,
    times: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    kind: fc.constant('webhook' as const),
    id: saleId,
    step,
    delay,
    confirmed: fc.boolean(),
    readAfter: fc.nat({ max: 30 }),
    lag,
    skew,
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      id: saleId,
      // Seconds from the truth's last step: most reads come around and after it.
      at: fc.integer({ min: -3 * STEP, max: 3 * STEP }),
      lag,
      skew,
    }),
  },
);
type Event = typeof event extends fc.Arbitrary<infer T> ? T : never;

const histories = fc.record({
  choices: fc.record({
    1: fc.array(fc.nat({ max: 5 }), { maxLength: 5 }),
    2: fc.array(fc.nat({ max: 5 }), { maxLength: 5 }),
  }),
  events: fc.array(event, { minLength: 8, maxLength: 30 }),
});

type Truth = Readonly<Record<SaleId, readonly SaleStatus[]>>;

/** The mirror inputs of one event, as the worker and the reconciler build them. */
function inputsOf(e: Event, index: number, truth: Truth, base: number): MirrorInput[] {
  const path = truth[e.id];
  const paymentMethod = METHODS[e.id];
  const time = (ms: number) => new Date(base + ms);
  const record = (status: SaleStatus) => saleRecord(e.id, status, { paymentMethod });
  switch (e.kind) {
    case 'postback': {
      const k = e.step % path.length;
      const status = path[k] ?? 'PENDENTE';
      const notice = saleNotice('postback', { id: e.id, status, paymentMethod });
      const observedAt = time((k * STEP + e.delay) * 1000);
      return Array.from({ length: e.times }, () =>
        noticeInput(notice, 'signed', observedAt, 'reconcile'),
      );
    }
    case 'webhook': {
      const k = e.step % path.length;
      const status = path[k] ?? 'PENDENTE';
      const received = k * STEP + e.delay;
      const readStart = received + e.readAfter;
      // A replica behind answers an older status of the truth; a confirming one answers this.
      const answered = e.confirmed ? status : truthAt(path, readStart - e.lag);
      const notice = saleNotice('webhook', { id: e.id, status, paymentMethod });
      return [
        saleRead(record(answered), time(readStart * 1000 + e.skew), 'confirmation'),
        noticeInput(
          notice,
          answered === status ? 'confirmed' : 'contradicted',
          time(received * 1000),
          'read',
        ),
      ];
    }
    case 'read': {
      // Reads mostly go forward in time as the events do; answers lag behind them.
      const at = (path.length - 1) * STEP + e.at + index * READ_PACE;
      return [saleRead(record(truthAt(path, at - e.lag)), time(at * 1000 + e.skew))];
    }
  }
}

interface Held {
  readonly status: string;
  /** The last history row when the final status was first held. */
  readonly mark: number;
}

async function saleRow(id: number) {
  const [row] = await test().database.sql<{ status: string; status_set_by: string | null }[]>`
    select status, status_set_by from sales where id = ${id}`;
  return row;
}

async function lastHistoryId(): Promise<number> {
  const [row] = await test().database.sql<{ id: number | null }[]>`
    select max(id)::int as id from status_history`;
  return row?.id ?? 0;
}

/** Entered history rows, after `held.mark`, that left the held final status. */
async function leftFinal(id: number, held: Held) {
  return test().database.sql`
    select from_status, to_status, source from status_history
     where resource_type = 'sale' and resource_id = ${id} and id > ${held.mark}
       and entered and from_status = ${held.status}`;
}

async function reset() {
  await test().database.sql`truncate sales, sale_items, withdrawals, status_history,
    reconciliation_discrepancies, ledger_entries, ledger_closes, ledger_closed_days
    restart identity cascade`;
}

describe('interleaved postbacks, webhooks and lagging reads with clock skew', () => {
  it('never leave an authentic final status; reconciliation ends on the truth', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ({ choices, events }) => {
        await reset();
        const { sql } = test().database;
        const truth: Truth = {
          1: truthPath(METHODS[1], choices[1]),
          2: truthPath(METHODS[2], choices[2]),
        };
        // The story happened over the last hour, by the database's clock.
        const base = (await dbNow(sql)).getTime() - 3_600_000;
        const watch = { now: new Date(), policy: DEFAULT_WATCH_POLICY };
        const held = new Map<SaleId, Held>();
        for (const [index, e] of events.entries()) {
          await writeMirror(sql, inputsOf(e, index, truth, base), watch);
          for (const id of SALE_IDS) {
            const row = await saleRow(id);
            const kept = held.get(id);
            if (kept) {
              expect(row?.status).toBe(kept.status);
              expect(await leftFinal(id, kept)).toEqual([]);
            } else if (
              row &&
              isFinalSaleStatus(row.status as SaleStatus) &&
              isAuthenticObservation(row.status_set_by)
            ) {
              held.set(id, { status: row.status, mark: await lastHistoryId() });
            }
          }
        }
        // Reconciliation: an up-to-date read of every sale, begun now by Postgres's clock.
        for (const id of SALE_IDS) {
          const current = truth[id][truth[id].length - 1] ?? 'PENDENTE';
          const record = saleRecord(id, current, { paymentMethod: METHODS[id] });
          await writeMirror(sql, [saleRead(record, await dbNow(sql))], watch);
          expect((await saleRow(id))?.status).toBe(current);
        }
      }),
      { numRuns: 25 },
    );
    // Room for shrinking a counterexample, not a bound on the run.
  }, 180_000);
});

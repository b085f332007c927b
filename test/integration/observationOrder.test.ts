import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_POLICY } from '../../src/domain/reconcileSchedule.js';
import {
  canReachSale,
  isSaleStatusAllowed,
  SALE_EDGES,
  type PaymentMethod,
  type SaleStatus,
} from '../../src/domain/saleMachine.js';
import type { GatewayTransaction } from '../../src/gateway/types.js';
import { writeMirror } from '../../src/mirror/applyToMirror.js';
import type { MirrorInput } from '../../src/mirror/inputs.js';
import type { Watch } from '../../src/mirror/planContext.js';
import type { SaleNotice } from '../../src/notifications/notification.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { postbackBody } from '../support/fixtures.js';
import { useTestDatabase } from '../support/services.js';

// Any interleaving of signed notifications (each read first, as the worker does) and gateway
// reads, each carrying when it was observed or begun, leaves the mirror at the truth's latest
// state once a read newer than everything has been written; the entered history is a path of
// the machine, and every authentic observation is in the history, invented ones never.
const test = useTestDatabase();

const SALE_ID = 7001;
const START = Date.UTC(2026, 10, 20, 12, 0);
const minutes = (n: number) => new Date(START + n * 60_000);

interface Truth {
  readonly method: PaymentMethod;
  /** Status i holds from minute 10·i. */
  readonly path: readonly SaleStatus[];
}

const truth: fc.Arbitrary<Truth> = fc
  .record({
    method: fc.constantFrom<PaymentMethod>('PIX', 'CREDIT_CARD'),
    picks: fc.array(fc.nat(), { maxLength: 6 }),
  })
  .map(({ method, picks }) => {
    const path: SaleStatus[] = ['PENDENTE'];
    for (const pick of picks) {
      const next = SALE_EDGES[path.at(-1)!].filter((s) => isSaleStatusAllowed(method, s));
      if (next.length === 0) break;
      path.push(next[pick % next.length]!);
    }
    return { method, path };
  });

/** The truth at a minute: the last status that had begun by then. */
function statusAt(world: Truth, minute: number): SaleStatus {
  return world.path[Math.min(Math.floor(minute / 10), world.path.length - 1)]!;
}

type Event =
  | {
      readonly kind: 'delivery';
      readonly step: number;
      readonly delay: number;
      /** Whether the worker read first (else it reads only when the move is ambiguous). */
      readonly readFirst: boolean;
    }
  | { readonly kind: 'read'; readonly minute: number };

const events = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('delivery' as const),
      step: fc.nat({ max: 6 }),
      delay: fc.nat({ max: 25 }),
      readFirst: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('read' as const), minute: fc.nat({ max: 70 }) }),
  ),
  { maxLength: 12 },
);

function notice(world: Truth, status: SaleStatus): SaleNotice {
  const parsed = parseNotification(
    'postback',
    postbackBody({ id: SALE_ID, status, paymentMethod: world.method, amount: '9900' }),
  );
  if (!parsed.ok || parsed.notice.kind !== 'sale') throw new Error('fixture did not parse');
  return parsed.notice;
}

function record(world: Truth, minute: number): GatewayTransaction {
  return {
    id: SALE_ID,
    status: statusAt(world, minute),
    paymentMethod: world.method,
    amountCents: 9900 as GatewayTransaction['amountCents'],
    netAmountCents: 9600 as GatewayTransaction['amountCents'],
    systemFeeCents: 300 as GatewayTransaction['amountCents'],
    reserveAmountCents: null,
    createdAt: minutes(0),
    completedAt: null,
    customerName: 'Maria da Silva',
    customerEmail: 'maria@example.com',
    customerDocument: null,
    customerPhone: null,
    items: [],
    pixCode: null,
    cardLastFour: null,
    cardBrand: null,
    boletoCode: null,
    externalTransactionId: null,
    installments: null,
    shipping: null,
  };
}

function readInput(
  world: Truth,
  minute: number,
  purpose: 'reconcile' | 'confirmation',
): MirrorInput {
  return {
    kind: 'read',
    resource: 'sale',
    record: record(world, minute),
    readAt: minutes(minute),
    context: { source: purpose === 'reconcile' ? 'reconcile' : 'postback', inboxEventId: null },
    purpose,
    runId: null,
  };
}

/**
 * A signed postback for step `step`, received `delay` minutes late, as the worker applies it:
 * with its read, or alone and, when its move is ambiguous (deferred), again with a read.
 */
async function deliver(world: Truth, event: Extract<Event, { kind: 'delivery' }>, watch: Watch) {
  const status = world.path[event.step];
  if (status === undefined) return false;
  const at = event.step * 10 + event.delay;
  const signed = (ambiguity: 'read' | 'defer'): MirrorInput => ({
    kind: 'notice',
    notice: notice(world, status),
    provenance: 'signed',
    observedAt: minutes(at),
    context: { source: 'postback', inboxEventId: null },
    ambiguity,
  });
  if (!event.readFirst) {
    const [alone] = await writeMirror(test().database.sql, [signed('defer')], watch);
    if (alone?.outcome !== 'deferred') return true;
  }
  await writeMirror(
    test().database.sql,
    [signed('read'), readInput(world, at, 'confirmation')],
    watch,
  );
  return true;
}

describe('observation order (notifications and gateway reads, any interleaving)', () => {
  it('ends at the truth with a history that is a path of the machine', async () => {
    await fc.assert(
      fc.asyncProperty(truth, events, async (world, sequence) => {
        await test().database.sql`truncate sales, sale_items, status_history,
          reconciliation_discrepancies restart identity cascade`;
        const watch = { now: minutes(100), policy: DEFAULT_WATCH_POLICY };
        const delivered = new Set<SaleStatus>();
        for (const event of sequence) {
          if (event.kind === 'read') {
            await writeMirror(
              test().database.sql,
              [readInput(world, event.minute, 'reconcile')],
              watch,
            );
          } else if (await deliver(world, event, watch)) {
            delivered.add(world.path[event.step]!);
          }
        }
        await writeMirror(test().database.sql, [readInput(world, 90, 'reconcile')], watch);

        const [sale] = await test().database.sql<{ status: string }[]>`
          select status from sales where id = ${SALE_ID}`;
        expect(sale?.status).toBe(world.path.at(-1));

        const history = await test().database.sql<
          { from_status: SaleStatus | null; to_status: SaleStatus; entered: boolean }[]
        >`select from_status, to_status, entered from status_history
           where resource_id = ${SALE_ID} order by id`;
        const entered = history.filter((row) => row.entered);
        expect(entered[0]?.from_status).toBeNull();
        for (const [index, row] of entered.entries()) {
          if (index === 0) continue;
          expect(row.from_status).toBe(entered[index - 1]!.to_status);
          expect(canReachSale(world.method, row.from_status!, row.to_status)).toBe(true);
        }
        const inTruth = new Set(world.path);
        for (const row of history) expect(inTruth.has(row.to_status)).toBe(true);
        const kept = new Set(history.map((row) => row.to_status));
        for (const status of delivered) expect(kept.has(status)).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

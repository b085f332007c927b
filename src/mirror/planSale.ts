import type { SaleInsert, SaleRow } from '../db/rows.js';
import { TX_NOW } from '../db/jsonRows.js';
import {
  decideGatewayRead,
  isOlderThan,
  NEWER_READ_WRITTEN,
  saleMachineFor,
} from '../domain/observationOrder.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import { decideSale, type PaymentMethod, type SaleStatus } from '../domain/saleMachine.js';
import type { GatewayTransaction } from '../gateway/types.js';
import type { SaleNotice } from '../notifications/notification.js';
import { compareWithGateway } from './compareFields.js';
import { fillMissing } from './fillMissing.js';
import type { MirrorResult, NoticeInput, ReadInput } from './inputs.js';
import type { Change, SaleRows } from './mirrorRows.js';
import type { PlanContext } from './planContext.js';
import {
  afterRead,
  laterOf,
  READ_AGAIN,
  readDiscrepancySource,
  withoutStatus,
} from './planContext.js';
import { InvariantError } from '../lib/invariantError.js';

type SaleNoticeInput = NoticeInput<SaleNotice>;
type SaleReadInput = ReadInput & { readonly resource: 'sale' };

/**
 * A sale notification, decided against the (locked) mirror row and written into `rows`.
 * Signed and unverified notices go through the state machine; a confirmed webhook adds only
 * what the gateway's read lacks (its `fee`) and its observation; a contradicted one writes
 * nothing and leaves its claims as discrepancies.
 */
export function planSaleNotice(
  rows: SaleRows,
  input: SaleNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const current = rows.get(notice.id);
  if (input.provenance === 'contradicted') return recordClaims(current, input, ctx);
  if (input.provenance === 'confirmed') return addConfirmed(rows, current, input, ctx);
  if (!current) {
    const first = decideSale(null, notice);
    if (first.kind === 'invalid') return { outcome: 'invalid', reason: first.reason };
    const values = noticeValues(notice);
    values.nextReconcileAt = nextReconcileAtOf(notice, ctx);
    values.statusObservedAt = input.observedAt;
    rows.insert(notice.id, values);
    return enterHistory(null, input, ctx, false);
  }

  const decision = decideSale(facts(current), notice);
  switch (decision.kind) {
    case 'insert':
      throw new InvariantError('decideSale returned insert for an existing row');
    case 'invalid':
      return { outcome: 'invalid', reason: decision.reason };
    case 'noop':
      rows.update(notice.id, {
        ...fillMissing(current, noticeValues(notice)),
        statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
      });
      ctx.writes.addItems(itemRows(notice), 'notice');
      return { outcome: 'noop', differences: 0 };
    case 'stale':
      return observe(current, input, ctx, decision.reason);
    case 'apply':
      // Strictly forward: right whatever the order of observation.
      return enter(rows, current, input, ctx, false);
    case 'confirm':
      if (isOlderThan(input.observedAt, current.statusObservedAt)) {
        return observe(current, input, ctx, `observed before the mirror's ${current.status}`);
      }
      if (input.ambiguity === 'defer') return { outcome: 'deferred' };
      if (input.ambiguity === 'reconcile') return enter(rows, current, input, ctx, true);
      // A read follows: enter the move unless this status is already in the record's story
      // (a late copy of an earlier dispute would otherwise open a second one).
      if (ctx.writes.hasSeen('sale', notice.id, notice.status)) {
        return { outcome: 'stale', reason: `${notice.status} already observed` };
      }
      return enter(rows, current, input, ctx, false);
  }
}

/** The gateway's record of a sale, requested at `readAt` (see decideGatewayRead). */
export function planSaleRead(rows: SaleRows, input: SaleReadInput, ctx: PlanContext): MirrorResult {
  const gateway = input.record;
  const current = rows.get(gateway.id);
  const method = (current?.paymentMethod ?? gateway.paymentMethod) as PaymentMethod;
  const decision = decideGatewayRead(
    current ? { ...facts(current), ...observed(current) } : null,
    { status: gateway.status, readAt: input.readAt },
    saleMachineFor(method),
  );
  const values = readValues(gateway);
  const after = afterRead(
    {
      resource: 'sale',
      status: gateway.status,
      paymentMethod: gateway.paymentMethod,
      createdAt: gateway.createdAt,
      completedAt: gateway.completedAt,
    },
    input,
    ctx,
  );
  switch (decision.kind) {
    case 'stale':
      if (decision.reason !== NEWER_READ_WRITTEN) rows.update(gateway.id, READ_AGAIN);
      return { outcome: 'stale', reason: decision.reason };
    case 'insert':
      rows.insert(gateway.id, { ...values, ...after, statusObservedAt: input.readAt });
      ctx.writes.addItems(gatewayItemRows(gateway), 'gateway');
      ctx.writes.addHistory({
        resource: 'sale',
        id: gateway.id,
        from: null,
        to: gateway.status,
        context: input.context,
        entered: true,
        observedAt: input.readAt,
      });
      return {
        outcome: 'applied',
        from: null,
        to: gateway.status,
        needsReconcile: false,
        differences: 0,
      };
    case 'write': {
      const row = current as SaleRow;
      const { update, differences } = compareWithGateway(row, values);
      rows.update(gateway.id, {
        ...update,
        ...after,
        statusObservedAt: laterOf(row.statusObservedAt, input.readAt),
      });
      ctx.writes.addItems(gatewayItemRows(gateway), 'gateway');
      const recorded = input.purpose === 'reconcile' ? differences : withoutStatus(differences);
      ctx.writes.addDiscrepancies('sale', gateway.id, recorded, {
        action: 'corrected',
        source: readDiscrepancySource(input),
        inboxEventId: input.context.inboxEventId,
        runId: input.runId,
      });
      if (!decision.move) return { outcome: 'noop', differences: recorded.length };
      ctx.writes.addHistory({
        resource: 'sale',
        id: gateway.id,
        from: decision.move.from,
        to: decision.move.to,
        context: input.context,
        entered: true,
        observedAt: input.readAt,
      });
      return {
        outcome: 'applied',
        from: decision.move.from,
        to: decision.move.to,
        needsReconcile: false,
        differences: recorded.length,
      };
    }
  }
}

function enter(
  rows: SaleRows,
  current: SaleRow,
  input: SaleNoticeInput,
  ctx: PlanContext,
  needsReconcile: boolean,
): MirrorResult {
  const { notice } = input;
  rows.update(notice.id, {
    ...fillMissing(current, noticeValues(notice)),
    nextReconcileAt: nextReconcileAtOf(notice, ctx),
    status: notice.status,
    statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
    ...(needsReconcile
      ? { reconcileRequestedAt: TX_NOW, reconcileReason: 'ambiguous move applied unconfirmed' }
      : {}),
  });
  return enterHistory(current.status, input, ctx, needsReconcile);
}

function enterHistory(
  from: string | null,
  input: SaleNoticeInput,
  ctx: PlanContext,
  needsReconcile: boolean,
): MirrorResult {
  const { notice } = input;
  ctx.writes.addItems(itemRows(notice), 'notice');
  ctx.writes.addHistory({
    resource: 'sale',
    id: notice.id,
    from,
    to: notice.status,
    context: input.context,
    entered: true,
    observedAt: input.observedAt,
  });
  return { outcome: 'applied', from, to: notice.status, needsReconcile, differences: 0 };
}

/**
 * A status the mirror is already past: an authenticated observation (signed, or confirmed by
 * the gateway) joins the record's history, marked as not entered, unless already there.
 */
function observe(
  current: SaleRow,
  input: SaleNoticeInput,
  ctx: PlanContext,
  reason: string,
): MirrorResult {
  const { notice } = input;
  const authenticated = input.provenance !== 'unverified';
  if (!authenticated || ctx.writes.hasSeen('sale', notice.id, notice.status)) {
    return { outcome: 'stale', reason };
  }
  ctx.writes.addHistory({
    resource: 'sale',
    id: notice.id,
    from: current.status,
    to: notice.status,
    context: input.context,
    entered: false,
    observedAt: input.observedAt,
  });
  return { outcome: 'observed', status: notice.status };
}

/** After the gateway's read: the webhook's `fee` (the read may lack systemFee), its status. */
function addConfirmed(
  rows: SaleRows,
  current: SaleRow | undefined,
  input: SaleNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  if (!current) return { outcome: 'stale', reason: 'the gateway read wrote nothing' };
  let differences = 0;
  if (notice.feeCents !== null) {
    if (current.feeCents === null) {
      rows.update(notice.id, { feeCents: notice.feeCents });
    } else if (current.feeCents !== notice.feeCents) {
      differences = 1;
      ctx.writes.addDiscrepancies(
        'sale',
        notice.id,
        [
          {
            field: 'fee_cents',
            mirrorValue: String(current.feeCents),
            gatewayValue: String(notice.feeCents),
          },
        ],
        {
          action: 'recorded',
          source: 'confirmation',
          inboxEventId: input.context.inboxEventId,
          runId: null,
        },
      );
    }
  }
  if (current.status === notice.status) return { outcome: 'noop', differences };
  return observe(current, input, ctx, `the mirror moved past ${notice.status}`);
}

/** A webhook the gateway contradicted: what it claims that the mirror holds otherwise. */
function recordClaims(
  current: SaleRow | undefined,
  input: SaleNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const reason = `the gateway has ${current?.status ?? 'no such sale'}, not ${notice.status}`;
  if (!current) return { outcome: 'unconfirmed', reason };
  const claims: Change<SaleInsert> = {
    status: notice.status,
    amountCents: notice.amountCents,
    feeCents: notice.feeCents,
  };
  ctx.writes.addDiscrepancies('sale', notice.id, compareWithGateway(current, claims).differences, {
    action: 'recorded',
    source: 'unconfirmed_webhook',
    inboxEventId: input.context.inboxEventId,
    runId: null,
  });
  return { outcome: 'unconfirmed', reason };
}

function facts(row: SaleRow): { status: SaleStatus; paymentMethod: PaymentMethod } {
  return { status: row.status as SaleStatus, paymentMethod: row.paymentMethod as PaymentMethod };
}

function observed(row: SaleRow) {
  return { statusObservedAt: row.statusObservedAt, gatewayReadAt: row.gatewayReadAt };
}

function nextReconcileAtOf(notice: SaleNotice, ctx: PlanContext): Date | null {
  return nextReconcileAt(
    {
      resource: 'sale',
      status: notice.status,
      paymentMethod: notice.paymentMethod,
      createdAt: notice.createdAt ?? ctx.watch.now,
      completedAt: null,
    },
    ctx.watch.now,
    ctx.watch.policy,
  );
}

function noticeValues(notice: SaleNotice): Change<SaleInsert> {
  return {
    id: notice.id,
    status: notice.status,
    paymentMethod: notice.paymentMethod,
    amountCents: notice.amountCents,
    feeCents: notice.feeCents,
    customerName: notice.customerName,
    customerEmail: notice.customerEmail,
    customerDocument: notice.customerDocument,
    customerPhone: notice.customerPhone,
    pixCode: notice.pixCode,
    boletoCode: notice.boletoCode,
    externalTransactionId: notice.externalTransactionId,
    shipping: notice.shipping ?? null,
    createdAt: notice.createdAt,
  };
}

/** Every field GET returns; `fee_cents` is the read's systemFee. */
function readValues(g: GatewayTransaction): SaleInsert {
  return {
    id: g.id,
    status: g.status,
    paymentMethod: g.paymentMethod,
    amountCents: g.amountCents,
    netAmountCents: g.netAmountCents,
    systemFeeCents: g.systemFeeCents,
    feeCents: g.systemFeeCents,
    reserveAmountCents: g.reserveAmountCents,
    installments: g.installments,
    customerName: g.customerName,
    customerEmail: g.customerEmail,
    customerDocument: g.customerDocument,
    customerPhone: g.customerPhone,
    pixCode: g.pixCode,
    boletoCode: g.boletoCode,
    cardLastFour: g.cardLastFour,
    cardBrand: g.cardBrand,
    externalTransactionId: g.externalTransactionId,
    shipping: g.shipping ?? null,
    createdAt: g.createdAt,
    completedAt: g.completedAt,
  };
}

function itemRows(notice: SaleNotice) {
  return (notice.items ?? []).map((item) => ({
    saleId: notice.id,
    itemId: item.itemId,
    title: item.title,
    unitPriceCents: item.unitPriceCents,
    quantity: item.quantity,
    tangible: item.tangible,
  }));
}

function gatewayItemRows(g: GatewayTransaction) {
  return g.items.map((item) => ({
    saleId: g.id,
    itemId: item.itemId,
    title: item.title,
    unitPriceCents: item.unitPriceCents,
    quantity: item.quantity,
    tangible: item.tangible,
  }));
}

import type { WithdrawalInsert, WithdrawalRow } from '../db/rows.js';
import {
  decideGatewayRead,
  isOlderThan,
  NEWER_READ_WRITTEN,
  WITHDRAWAL_MACHINE,
} from '../domain/observationOrder.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import {
  decideWithdrawal,
  sameWithdrawalOutcome,
  type WithdrawalStatus,
} from '../domain/withdrawalMachine.js';
import type { GatewayWithdrawal } from '../gateway/types.js';
import type { WithdrawalNotice } from '../notifications/notification.js';
import { compareWithGateway } from './compareFields.js';
import { fillMissing } from './fillMissing.js';
import type { MirrorResult, NoticeInput, ReadInput } from './inputs.js';
import type { Change, WithdrawalRows } from './mirrorRows.js';
import {
  afterRead,
  laterOf,
  READ_AGAIN,
  readDiscrepancySource,
  withoutStatus,
  type PlanContext,
} from './planContext.js';
import { InvariantError } from '../lib/invariantError.js';

type WithdrawalNoticeInput = NoticeInput<WithdrawalNotice>;
type WithdrawalReadInput = ReadInput & { readonly resource: 'withdrawal' };

/**
 * The withdrawal twin of planSaleNotice. Withdrawals are only notified by webhook: unverified
 * (no gateway keys) ones go through the machine and the gateway's `updatedAt`; a confirmed one
 * adds what GET lacks (`externalId`, `processedAt`); a contradicted one writes nothing.
 */
export function planWithdrawalNotice(
  rows: WithdrawalRows,
  input: WithdrawalNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const current = rows.get(notice.id);
  if (input.provenance === 'contradicted') return recordClaims(current, input, ctx);
  if (input.provenance === 'confirmed') return addConfirmed(rows, current, input, ctx);
  if (!current) {
    rows.insert(notice.id, {
      ...noticeValues(notice),
      ...schedule(notice, ctx),
      statusObservedAt: input.observedAt,
    });
    return enterHistory(null, input, ctx);
  }
  const decision = decideWithdrawal(
    { status: current.status as WithdrawalStatus, gatewayUpdatedAt: current.gatewayUpdatedAt },
    { status: notice.status, updatedAt: notice.updatedAt },
  );
  switch (decision.kind) {
    case 'insert':
      throw new InvariantError('decideWithdrawal returned insert for an existing row');
    case 'stale':
      return { outcome: 'stale', reason: decision.reason };
    case 'noop':
      rows.update(notice.id, {
        ...fillMissing(current, noticeValues(notice)),
        ...newerUpdatedAt(current, notice),
        statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
      });
      return { outcome: 'noop', differences: 0 };
    case 'apply':
      rows.update(notice.id, {
        ...fillMissing(current, noticeValues(notice)),
        ...schedule(notice, ctx),
        status: notice.status,
        gatewayUpdatedAt: notice.updatedAt,
        statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
      });
      return enterHistory(current.status, input, ctx);
  }
}

/** The gateway's record of a withdrawal (GET cashout, or our cashout request's answer). */
export function planWithdrawalRead(
  rows: WithdrawalRows,
  input: WithdrawalReadInput,
  ctx: PlanContext,
): MirrorResult {
  const gateway = input.record;
  const current = rows.get(gateway.id);
  if (current && gateway.updatedAt && isOlderThan(gateway.updatedAt, current.gatewayUpdatedAt)) {
    return { outcome: 'stale', reason: NEWER_READ_WRITTEN };
  }
  const decision = decideGatewayRead(
    current
      ? {
          status: current.status as WithdrawalStatus,
          statusObservedAt: current.statusObservedAt,
          gatewayReadAt: current.gatewayReadAt,
        }
      : null,
    { status: gateway.status, readAt: input.readAt },
    WITHDRAWAL_MACHINE,
  );
  const values = readValues(gateway);
  const after = afterRead(
    { resource: 'withdrawal', status: gateway.status, createdAt: gateway.createdAt },
    input,
    ctx,
  );
  switch (decision.kind) {
    case 'stale':
      if (decision.reason !== NEWER_READ_WRITTEN) rows.update(gateway.id, READ_AGAIN);
      return { outcome: 'stale', reason: decision.reason };
    case 'insert':
      rows.insert(gateway.id, { ...values, ...after, statusObservedAt: input.readAt });
      addHistory(ctx, gateway.id, null, gateway.status, input.context, input.readAt);
      return {
        outcome: 'applied',
        from: null,
        to: gateway.status,
        needsReconcile: false,
        differences: 0,
      };
    case 'write': {
      const row = current as WithdrawalRow;
      // The same final failure under its two names (REJECTED, FAILED) is no move.
      const { update, differences } = compareWithGateway(row, {
        ...values,
        status: decision.move ? gateway.status : row.status,
      });
      rows.update(gateway.id, {
        ...update,
        ...after,
        statusObservedAt: laterOf(row.statusObservedAt, input.readAt),
      });
      const recorded = input.purpose === 'reconcile' ? differences : withoutStatus(differences);
      ctx.writes.addDiscrepancies('withdrawal', gateway.id, recorded, {
        action: 'corrected',
        source: readDiscrepancySource(input),
        inboxEventId: input.context.inboxEventId,
        runId: input.runId,
      });
      if (!decision.move) return { outcome: 'noop', differences: recorded.length };
      const { from, to } = decision.move;
      addHistory(ctx, gateway.id, from, to, input.context, input.readAt);
      return { outcome: 'applied', from, to, needsReconcile: false, differences: recorded.length };
    }
  }
}

/** After the gateway's read: the webhook-only `externalId` and `processedAt`, its status. */
function addConfirmed(
  rows: WithdrawalRows,
  current: WithdrawalRow | undefined,
  input: WithdrawalNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  if (!current) return { outcome: 'stale', reason: 'the gateway read wrote nothing' };
  const webhookOnly: Change<WithdrawalInsert> = {
    externalId: notice.externalId,
    processedAt: notice.processedAt,
  };
  // A confirmed webhook no older than the mirror's updatedAt corrects these; an older one
  // only fills what is missing, and a difference is recorded.
  const upToDate = !isOlderThan(notice.updatedAt, current.gatewayUpdatedAt);
  const { update, differences } = compareWithGateway(current, webhookOnly);
  rows.update(notice.id, upToDate ? update : fillMissing(current, webhookOnly));
  ctx.writes.addDiscrepancies('withdrawal', notice.id, differences, {
    action: upToDate ? 'corrected' : 'recorded',
    source: 'confirmation',
    inboxEventId: input.context.inboxEventId,
    runId: null,
  });
  if (sameWithdrawalOutcome(current.status as WithdrawalStatus, notice.status)) {
    return { outcome: 'noop', differences: differences.length };
  }
  if (ctx.writes.hasSeen('withdrawal', notice.id, notice.status)) {
    return { outcome: 'stale', reason: `the mirror moved past ${notice.status}` };
  }
  ctx.writes.addHistory({
    resource: 'withdrawal',
    id: notice.id,
    from: current.status,
    to: notice.status,
    context: input.context,
    entered: false,
    observedAt: input.observedAt,
  });
  return { outcome: 'observed', status: notice.status };
}

function recordClaims(
  current: WithdrawalRow | undefined,
  input: WithdrawalNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const reason = `the gateway has ${current?.status ?? 'no such withdrawal'}, not ${notice.status}`;
  if (!current) return { outcome: 'unconfirmed', reason };
  const claims: Change<WithdrawalInsert> = {
    status: notice.status,
    amountCents: notice.amountCents,
    externalId: notice.externalId,
    processedAt: notice.processedAt,
  };
  ctx.writes.addDiscrepancies(
    'withdrawal',
    notice.id,
    compareWithGateway(current, claims).differences,
    {
      action: 'recorded',
      source: 'unconfirmed_webhook',
      inboxEventId: input.context.inboxEventId,
      runId: null,
    },
  );
  return { outcome: 'unconfirmed', reason };
}

function enterHistory(
  from: string | null,
  input: WithdrawalNoticeInput,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  addHistory(ctx, notice.id, from, notice.status, input.context, input.observedAt);
  return { outcome: 'applied', from, to: notice.status, needsReconcile: false, differences: 0 };
}

function addHistory(
  ctx: PlanContext,
  id: number,
  from: string | null,
  to: string,
  context: NoticeInput['context'],
  observedAt: Date,
): void {
  ctx.writes.addHistory({
    resource: 'withdrawal',
    id,
    from,
    to,
    context,
    entered: true,
    observedAt,
  });
}

function schedule(notice: WithdrawalNotice, ctx: PlanContext) {
  return {
    nextReconcileAt: nextReconcileAt(
      {
        resource: 'withdrawal',
        status: notice.status,
        createdAt: notice.createdAt ?? ctx.watch.now,
      },
      ctx.watch.now,
      ctx.watch.policy,
    ),
  };
}

function noticeValues(notice: WithdrawalNotice): Change<WithdrawalInsert> {
  return {
    id: notice.id,
    status: notice.status,
    amountCents: notice.amountCents,
    pixKey: notice.pixKey,
    pixKeyType: notice.pixKeyType,
    externalId: notice.externalId,
    createdAt: notice.createdAt,
    gatewayUpdatedAt: notice.updatedAt,
    processedAt: notice.processedAt,
  };
}

function newerUpdatedAt(
  current: WithdrawalRow,
  notice: WithdrawalNotice,
): Change<WithdrawalInsert> {
  const known = current.gatewayUpdatedAt;
  return known === null || notice.updatedAt > known ? { gatewayUpdatedAt: notice.updatedAt } : {};
}

function readValues(g: GatewayWithdrawal): WithdrawalInsert {
  return {
    id: g.id,
    status: g.status,
    amountCents: g.amountCents,
    netAmountCents: g.netAmountCents,
    feeFixedCents: g.feeFixedCents,
    feeVariableCents: g.feeVariableCents,
    feeTotalCents: g.feeTotalCents,
    pixKey: g.pixKey,
    pixKeyType: g.pixKeyType,
    createdAt: g.createdAt,
    gatewayUpdatedAt: g.updatedAt,
  };
}

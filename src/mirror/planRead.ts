import { TX_NOW } from '../db/jsonRows.js';
import { NEWER_READ_WRITTEN } from '../domain/observationOrder.js';
import type { Notice } from '../notifications/notification.js';
import { asText, compareWithGateway, type FieldDifference } from './compareFields.js';
import { RESTORED, wasDenied } from './counted.js';
import type { MirrorResult, ReadInput } from './inputs.js';
import type { MirrorRows } from './mirrorRows.js';
import {
  afterRead,
  laterOf,
  READ_AGAIN,
  readDiscrepancySource,
  withoutStatus,
  type PlanContext,
} from './planContext.js';
import type { MirrorRecord, Resource } from './resource.js';

/**
 * The gateway's record (a GET, or the answer to our own request), requested at `readAt`: the
 * truth as of then (see decideGatewayRead). Every field it gives is written, each value the
 * mirror held otherwise recorded as a discrepancy; a move is entered in the history.
 */
export function planRead<Row extends MirrorRecord, Read extends { id: number; status: string }>(
  resource: Resource<Row, Notice, Read>,
  rows: MirrorRows<Row>,
  input: ReadInput & { readonly record: Read },
  ctx: PlanContext,
): MirrorResult {
  const read = input.record;
  const current = rows.get(read.id);
  const decision = resource.decideRead(current, read, input.readAt);
  const values = resource.readValues(read);
  const after = afterRead(resource.watchedRead(read, current), input, ctx);
  const inconsistencies = resource.readInconsistencies?.(read, current) ?? [];
  const recordInconsistencies = () =>
    ctx.writes.addDiscrepancies(resource.name, read.id, inconsistencies, {
      action: 'recorded',
      source: 'fee_arithmetic',
      inboxEventId: input.context.inboxEventId,
      runId: input.runId,
    });
  switch (decision.kind) {
    case 'stale':
      if (decision.reason !== NEWER_READ_WRITTEN) rows.update(read.id, READ_AGAIN);
      return { outcome: 'stale', reason: decision.reason };
    case 'held':
      return holdFinal(resource, rows, current as Row, input, ctx, decision.reason);
    case 'insert':
      rows.insert(read.id, {
        ...values,
        ...after,
        statusObservedAt: input.readAt,
        statusSetBy: readSetBy(input),
      });
      ctx.writes.addItems(resource.readItems(read), 'gateway');
      recordInconsistencies();
      addHistory(resource, read.id, null, read.status, input, ctx);
      return {
        outcome: 'applied',
        from: null,
        to: read.status,
        needsReconcile: false,
        differences: 0,
      };
    case 'write': {
      const row = current as Row;
      // Two names of one status (a withdrawal's REJECTED and FAILED) are no move.
      const compared = compareWithGateway(row, {
        ...values,
        status: decision.move ? read.status : row.status,
      });
      const cleared = clearedBy(resource.readClears(read), row);
      const update = { ...compared.update, ...cleared.update };
      const differences = [...compared.differences, ...cleared.differences];
      rows.update(read.id, {
        ...update,
        ...after,
        statusObservedAt: laterOf(row.statusObservedAt, input.readAt),
        ...(decision.move ? { statusSetBy: readSetBy(input) } : {}),
        ...(row.disagreeingReads > 0 || row.flaggedAt !== null ? AGREED : {}),
        ...(wasDenied(row) ? RESTORED : {}),
      });
      ctx.writes.addItems(resource.readItems(read), 'gateway');
      recordInconsistencies();
      const recorded = input.purpose === 'reconcile' ? differences : withoutStatus(differences);
      ctx.writes.addDiscrepancies(resource.name, read.id, recorded, {
        action: 'corrected',
        source: readDiscrepancySource(input),
        inboxEventId: input.context.inboxEventId,
        runId: input.runId,
      });
      if (!decision.move) return { outcome: 'noop', differences: recorded.length };
      const { from, to } = decision.move;
      addHistory(resource, read.id, from, to, input, ctx);
      return { outcome: 'applied', from, to, needsReconcile: false, differences: recorded.length };
    }
  }
}

/** The fields a read empties (see Resource.readClears) that the mirror still holds. */
function clearedBy(
  fields: readonly string[],
  row: object,
): { update: Record<string, null>; differences: FieldDifference[] } {
  const update: Record<string, null> = {};
  const differences: FieldDifference[] = [];
  for (const field of fields) {
    const have = (row as Record<string, unknown>)[field];
    if (have === null || have === undefined) continue;
    update[field] = null;
    differences.push({
      field: field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      mirrorValue: asText(have),
      gatewayValue: null,
    });
  }
  return { update, differences };
}

/** A read that agrees with the mirror's status ends a run of disagreeing ones, and its flag. */
const AGREED = { disagreeingReads: 0, flaggedAt: null, flagReason: null } as const;

function readSetBy(input: ReadInput): 'read' | 'api' {
  return input.purpose === 'api' ? 'api' : 'read';
}

/**
 * A read that contradicts a final status a signed postback or a confirmed webhook set: nothing
 * moves. The difference is recorded and the record read again first; once
 * `disagreeingReadsToFlag` reads in a row disagreed, it is flagged for an operator instead.
 */
function holdFinal<Row extends MirrorRecord>(
  resource: { readonly name: 'sale' | 'withdrawal' },
  rows: MirrorRows<Row>,
  row: Row,
  input: ReadInput & { readonly record: { id: number; status: string } },
  ctx: PlanContext,
  reason: string,
): MirrorResult {
  const read = input.record;
  const disagreeing = row.disagreeingReads + 1;
  const flagged = disagreeing >= ctx.watch.policy.disagreeingReadsToFlag;
  rows.update(read.id, {
    ...(wasDenied(row) ? RESTORED : {}),
    disagreeingReads: disagreeing,
    ...(flagged
      ? {
          ...(row.flaggedAt === null ? { flaggedAt: TX_NOW } : {}),
          flagReason: `${disagreeing} gateway reads in a row said ${read.status}, not ${row.status}`,
          reconcileRequestedAt: null,
          reconcileReason: null,
        }
      : {
          reconcileRequestedAt: TX_NOW,
          reconcileReason: `a gateway read said ${read.status}, not the final ${row.status}`,
        }),
    ...(input.purpose === 'reconcile' ? { lastReconciledAt: TX_NOW } : {}),
  });
  ctx.writes.addDiscrepancies(
    resource.name,
    read.id,
    [{ field: 'status', mirrorValue: row.status, gatewayValue: read.status }],
    {
      action: 'recorded',
      source: readDiscrepancySource(input),
      inboxEventId: input.context.inboxEventId,
      runId: input.runId,
    },
  );
  return { outcome: 'held', reason, flagged };
}

function addHistory(
  resource: { readonly name: 'sale' | 'withdrawal' },
  id: number,
  from: string | null,
  to: string,
  input: ReadInput,
  ctx: PlanContext,
): void {
  ctx.writes.addHistory({
    resource: resource.name,
    id,
    from,
    to,
    context: input.context,
    entered: true,
    observedAt: input.readAt,
  });
}

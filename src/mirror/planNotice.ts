import { TX_NOW } from '../db/jsonRows.js';
import { isAuthenticObservation, isOlderThan } from '../domain/observationOrder.js';
import { nextReconcileAt } from '../domain/reconcileSchedule.js';
import { InvariantError } from '../lib/invariantError.js';
import type { Notice } from '../notifications/notification.js';
import { compareWithGateway } from './compareFields.js';
import { RESTORED, wasDenied } from './counted.js';
import { fillMissing } from './fillMissing.js';
import type { MirrorResult, NoticeInput } from './inputs.js';
import type { MirrorRows } from './mirrorRows.js';
import { laterOf, type PlanContext } from './planContext.js';
import type { MirrorRecord, Resource } from './resource.js';

type AnyResource<Row extends MirrorRecord, N extends Notice> = Resource<
  Row,
  N,
  { readonly id: number; readonly status: string }
>;

type Applied = Extract<MirrorResult, { outcome: 'applied' }>;

/**
 * A notification, decided against the (locked) mirror row and written into `rows`. Signed and
 * unverified notices go through the record's state machine; a confirmed webhook adds only what
 * the gateway's read lacks and its observation; a contradicted one writes nothing and leaves
 * its claims as discrepancies.
 */
export function planNotice<Row extends MirrorRecord, N extends Notice>(
  resource: AnyResource<Row, N>,
  rows: MirrorRows<Row>,
  input: NoticeInput<N>,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const current = rows.get(notice.id);
  // An authentic observation proves the record exists: a denial is cleared.
  if (current && (input.provenance === 'signed' || input.provenance === 'confirmed')) {
    if (wasDenied(current)) rows.update(notice.id, RESTORED);
  }
  if (input.provenance === 'contradicted') return recordClaims(resource, current, input, ctx);
  if (input.provenance === 'confirmed') return addConfirmed(resource, rows, current, input, ctx);
  const decision = resource.decideNotice(current ?? null, notice);
  if (!current) {
    if (decision.kind === 'invalid') return { outcome: 'invalid', reason: decision.reason };
    rows.insert(notice.id, {
      ...resource.noticeValues(notice),
      nextReconcileAt: schedule(resource, notice, ctx),
      statusObservedAt: input.observedAt,
      statusSetBy: input.provenance,
    });
    return enterHistory(resource, null, input, ctx, false);
  }
  switch (decision.kind) {
    case 'insert':
      throw new InvariantError(`the ${resource.name} machine returned insert for an existing row`);
    case 'invalid':
      return { outcome: 'invalid', reason: decision.reason };
    case 'noop':
      rows.update(notice.id, {
        ...fillMissing(current, resource.noticeValues(notice)),
        ...resource.sameStatusValues(current, notice),
        statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
        ...authenticated(current, input.provenance),
      });
      ctx.writes.addItems(resource.noticeItems(notice), 'notice');
      return { outcome: 'noop', differences: 0 };
    case 'stale':
      // Only an authenticated notice is observed (a withdrawal's never is: webhooks only).
      return observe(resource, current, input, ctx, decision.reason);
    case 'apply':
      // Strictly forward: right whatever the order of observation.
      return enter(resource, rows, current, input, ctx, false);
    case 'confirm':
      if (isOlderThan(input.observedAt, current.statusObservedAt)) {
        return observe(
          resource,
          current,
          input,
          ctx,
          `observed before the mirror's ${current.status}`,
        );
      }
      if (input.ambiguity === 'defer') return { outcome: 'deferred' };
      if (input.ambiguity === 'reconcile') {
        // No keys to read with: a signed move back into a status the record already had may
        // be a captured postback replayed; it is applied, marked, and counted as such.
        const replay =
          input.provenance === 'signed' &&
          ctx.writes.hasSeen(resource.name, notice.id, notice.status);
        const result = enter(resource, rows, current, input, ctx, true);
        return replay ? { ...result, unconfirmedReplay: true } : result;
      }
      // A read follows: enter the move unless this status is already in the record's story
      // (a late copy of an earlier dispute would otherwise open a second one).
      if (ctx.writes.hasSeen(resource.name, notice.id, notice.status)) {
        return { outcome: 'stale', reason: `${notice.status} already observed` };
      }
      return enter(resource, rows, current, input, ctx, false);
  }
}

/** Moves the record to the notified status. */
function enter<Row extends MirrorRecord, N extends Notice>(
  resource: AnyResource<Row, N>,
  rows: MirrorRows<Row>,
  current: Row,
  input: NoticeInput<N>,
  ctx: PlanContext,
  needsReconcile: boolean,
): Applied {
  const { notice } = input;
  rows.update(notice.id, {
    ...fillMissing(current, resource.noticeValues(notice)),
    nextReconcileAt: schedule(resource, notice, ctx),
    status: notice.status,
    statusSetBy: input.provenance,
    ...resource.moveValues(notice),
    statusObservedAt: laterOf(current.statusObservedAt, input.observedAt),
    ...(needsReconcile
      ? { reconcileRequestedAt: TX_NOW, reconcileReason: 'ambiguous move applied unconfirmed' }
      : {}),
  });
  return enterHistory(resource, current.status, input, ctx, needsReconcile);
}

function enterHistory<N extends Notice>(
  resource: AnyResource<MirrorRecord, N>,
  from: string | null,
  input: NoticeInput<N>,
  ctx: PlanContext,
  needsReconcile: boolean,
): Applied {
  const { notice } = input;
  ctx.writes.addItems(resource.noticeItems(notice), 'notice');
  ctx.writes.addHistory({
    resource: resource.name,
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
function observe<N extends Notice>(
  resource: AnyResource<MirrorRecord, N>,
  current: MirrorRecord,
  input: NoticeInput<N>,
  ctx: PlanContext,
  reason: string,
): MirrorResult {
  const { notice } = input;
  const authenticated = input.provenance !== 'unverified';
  if (!authenticated || ctx.writes.hasSeen(resource.name, notice.id, notice.status)) {
    return { outcome: 'stale', reason };
  }
  ctx.writes.addHistory({
    resource: resource.name,
    id: notice.id,
    from: current.status,
    to: notice.status,
    context: input.context,
    entered: false,
    observedAt: input.observedAt,
  });
  return { outcome: 'observed', status: notice.status };
}

/**
 * After the gateway's read: what only the webhook carries (the read wrote the rest), and its
 * status as an observation. Its own fields correct the mirror's when the resource says so;
 * otherwise they only fill what is missing, and a difference is recorded.
 */
function addConfirmed<Row extends MirrorRecord, N extends Notice>(
  resource: AnyResource<Row, N>,
  rows: MirrorRows<Row>,
  current: Row | undefined,
  input: NoticeInput<N>,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  if (!current) return { outcome: 'stale', reason: 'the gateway read wrote nothing' };
  const webhookOnly = resource.webhookOnly(notice);
  const corrects = resource.webhookCorrects(current, notice);
  const { update, differences } = compareWithGateway(current, webhookOnly);
  rows.update(notice.id, corrects ? update : fillMissing(current, webhookOnly));
  ctx.writes.addDiscrepancies(resource.name, notice.id, differences, {
    action: corrects ? 'corrected' : 'recorded',
    source: 'confirmation',
    inboxEventId: input.context.inboxEventId,
    runId: null,
  });
  // Amounts and fee come from the read only: what the webhook claims otherwise is recorded.
  const claimed = compareWithGateway(current, resource.webhookClaims(notice)).differences;
  ctx.writes.addDiscrepancies(resource.name, notice.id, claimed, {
    action: 'recorded',
    source: 'unconfirmed_webhook',
    inboxEventId: input.context.inboxEventId,
    runId: null,
  });
  if (resource.sameStatus(current.status, notice.status)) {
    rows.update(notice.id, authenticated(current, 'confirmed'));
    return { outcome: 'noop', differences: differences.length };
  }
  return observe(resource, current, input, ctx, `the mirror moved past ${notice.status}`);
}

/** The status the mirror holds, observed authentically: a read can no longer undo it if final. */
function authenticated(current: MirrorRecord, provenance: string): { statusSetBy?: string } {
  if (provenance !== 'signed' && provenance !== 'confirmed') return {};
  return isAuthenticObservation(current.statusSetBy) ? {} : { statusSetBy: provenance };
}

/** A webhook the gateway contradicted: what it claims that the mirror holds otherwise. */
function recordClaims<N extends Notice>(
  resource: AnyResource<MirrorRecord, N>,
  current: MirrorRecord | undefined,
  input: NoticeInput<N>,
  ctx: PlanContext,
): MirrorResult {
  const { notice } = input;
  const reason = `the gateway has ${current?.status ?? `no such ${resource.name}`}, not ${notice.status}`;
  if (!current) return { outcome: 'unconfirmed', reason };
  const { differences } = compareWithGateway(current, resource.claims(notice));
  ctx.writes.addDiscrepancies(resource.name, notice.id, differences, {
    action: 'recorded',
    source: 'unconfirmed_webhook',
    inboxEventId: input.context.inboxEventId,
    runId: null,
  });
  return { outcome: 'unconfirmed', reason };
}

function schedule<N extends Notice>(
  resource: AnyResource<MirrorRecord, N>,
  notice: N,
  ctx: PlanContext,
): Date | null {
  return nextReconcileAt(
    resource.watchedNotice(notice, ctx.watch.now),
    ctx.watch.now,
    ctx.watch.policy,
  );
}

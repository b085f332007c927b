import type { FinishedRow, HeldKey } from '../inbox/sql/worker.js';
import type { MirrorInput, MirrorResult } from '../mirror/inputs.js';
import type { Notice } from '../notifications/notification.js';
import { payloadAmount, type CrossChannelCandidate } from './crossChannelCheck.js';
import type { InboxRow } from './inboxRows.js';
import { planRow, type RowPlan, type RowPlanOptions } from './rowInputs.js';
import {
  doneResult,
  finishedRow,
  rowOutcome,
  wantsCrossChannelCheck,
  type Applied,
  type ProcessResult,
} from './workerOutcome.js';

export type BatchItemResult =
  | ProcessResult
  /** The row needs a gateway read first: left pending for the confirmation path. */
  | { readonly kind: 'forward' }
  /** Its gateway read failed: the row stays pending and its job retries. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** A webhook about a record the mirror does not know: left pending for the lane of unknown ids. */
  | { readonly kind: 'unknownId' };

type ToApply = { readonly row: InboxRow; readonly plan: Extract<RowPlan, { kind: 'apply' }> };

/**
 * One batch's rows on their way through the worker: what each becomes before the mirror (its
 * inputs, or an outcome without them), then after it; the inbox rows' outcomes and the dedupe
 * keys to give back, gathered for the statements that record them.
 */
export class BatchRows {
  readonly results: Map<number, BatchItemResult>;
  readonly finished: FinishedRow[] = [];
  readonly released: HeldKey[] = [];
  private readonly toApply: ToApply[] = [];
  private readonly done: { row: InboxRow; notice: Notice; applied: Applied }[] = [];

  constructor(ids: readonly number[]) {
    this.results = new Map(ids.map((id) => [id, { kind: 'missing' }]));
  }

  /** The locked rows' mirror inputs, in id order; rows that need none are settled here. */
  inputsOf(rows: readonly InboxRow[], options: RowPlanOptions): MirrorInput[] {
    for (const row of rows) {
      if (row.state !== 'pending') {
        this.results.set(row.id, { kind: 'skipped', state: row.state });
        continue;
      }
      const plan = planRow(row, options);
      switch (plan.kind) {
        case 'quarantined':
          this.finished.push({
            id: row.id,
            state: 'quarantined',
            outcome: 'unparseable',
            reason: plan.reason,
          });
          this.results.set(row.id, {
            kind: 'quarantined',
            reason: plan.reason,
            receivedAt: row.receivedAt,
          });
          break;
        case 'forward':
          this.results.set(row.id, { kind: 'forward' });
          break;
        case 'failed':
          this.results.set(row.id, { kind: 'failed', error: plan.error });
          break;
        case 'forged':
          this.finish(row, { outcome: 'forged', confirmed: true, detail: plan.detail });
          this.released.push(heldKey(row));
          break;
        case 'held':
          this.finish(row, {
            outcome: 'held',
            confirmed: false,
            detail: 'no gateway keys to confirm it; UNCONFIRMED_WEBHOOKS=hold',
          });
          break;
        case 'apply':
          this.toApply.push({ row, plan });
          break;
      }
    }
    return this.toApply.flatMap(({ plan }) => plan.inputs);
  }

  /**
   * Each applied row's outcome from its inputs' results (in the order inputsOf gave them), and
   * the rows whose amount the other channel's deliveries are compared with.
   */
  applied(mirrorResults: readonly MirrorResult[]): CrossChannelCandidate[] {
    const candidates: CrossChannelCandidate[] = [];
    let next = 0;
    for (const { row, plan } of this.toApply) {
      const own = mirrorResults.slice(next, next + plan.inputs.length);
      next += plan.inputs.length;
      const applied = rowOutcome(own, {
        confirmed: plan.inputs.some((input) => input.kind === 'read'),
        contradicted: plan.contradicted,
      });
      if (applied === 'deferred') {
        this.results.set(row.id, { kind: 'forward' });
        continue;
      }
      this.finished.push(finishedRow(row.id, applied));
      if (plan.releaseKey) this.released.push(heldKey(row));
      if (wantsCrossChannelCheck(plan.notice, applied)) {
        candidates.push({
          channel: row.channel,
          notice: plan.notice,
          inboxEventId: row.id,
          payloadAmount: payloadAmount(row.payload),
        });
      }
      this.done.push({ row, notice: plan.notice, applied });
    }
    return candidates;
  }

  /** The applied rows' results, once their outcomes are written. */
  settle(disagreeing: ReadonlySet<number>): void {
    for (const { row, notice, applied } of this.done) {
      this.results.set(
        row.id,
        doneResult(notice, applied, disagreeing.has(row.id), row.receivedAt),
      );
    }
  }

  /** A row finished without mirror inputs. */
  private finish(row: InboxRow, outcome: Omit<Applied, 'needsReconcile'>): void {
    const applied: Applied = { ...outcome, needsReconcile: false };
    this.finished.push(finishedRow(row.id, applied));
    if (row.parsed.ok) {
      this.results.set(row.id, doneResult(row.parsed.notice, applied, false, row.receivedAt));
    }
  }
}

function heldKey(row: InboxRow): HeldKey {
  return { inboxEventId: row.id, channel: row.channel, eventKey: row.eventKey };
}

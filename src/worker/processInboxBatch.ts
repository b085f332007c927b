import { inArray } from 'drizzle-orm';
import { inboxEvents } from '../db/schema.js';
import { applyNotices, type NoticeToApply } from '../mirror/applyNotices.js';
import { retryingInsertRaces } from '../mirror/mirrorRows.js';
import type { Channel, Notice } from '../notifications/notification.js';
import { parseNotification } from '../notifications/parseNotification.js';
import {
  payloadAmount,
  recordCrossChannelDisagreements,
  type CrossChannelCandidate,
} from './crossChannelCheck.js';
import { finishInboxRows, type FinishedRow } from './finishInboxRows.js';
import type { ProcessDeps } from './processInboxEvent.js';
import {
  appliedAsReceived,
  doneResult,
  finishedRow,
  wantsCrossChannelCheck,
  type ProcessResult,
} from './workerOutcome.js';

/** 'alone': this row needs the gateway first; process it with processInboxEvent. */
export type BatchItemResult = ProcessResult | { readonly kind: 'alone' };

interface Parsed {
  readonly id: number;
  readonly channel: Channel;
  readonly notice: Notice;
  readonly payload: Record<string, unknown>;
  readonly receivedAt: Date;
}

/**
 * Applies many inbox rows in one transaction, as processInboxEvent would one after the other
 * in id order: the rows are locked together, the mirror is written with a few multi-row
 * statements, and each row gets its outcome. A row whose notification must first be confirmed
 * with the gateway (an unsigned webhook, an ambiguous move, with gateway keys) is left pending
 * and answered 'alone', along with the later rows of the same record.
 */
export async function processInboxBatch(
  deps: ProcessDeps,
  inboxEventIds: readonly number[],
): Promise<Map<number, BatchItemResult>> {
  const watch = { now: (deps.now ?? (() => new Date()))(), policy: deps.policy };
  const ids = [...new Set(inboxEventIds)].sort((a, b) => a - b);
  return retryingInsertRaces(() =>
    deps.db.transaction(async (tx) => {
      const results = new Map<number, BatchItemResult>(
        ids.map((id) => [id, { kind: 'missing' }] as const),
      );
      const rows = await tx
        .select({
          id: inboxEvents.id,
          state: inboxEvents.state,
          channel: inboxEvents.channel,
          payload: inboxEvents.payload,
          receivedAt: inboxEvents.receivedAt,
        })
        .from(inboxEvents)
        .where(inArray(inboxEvents.id, ids))
        .orderBy(inboxEvents.id)
        .for('update');

      const finished: FinishedRow[] = [];
      const parsed: Parsed[] = [];
      for (const row of rows) {
        if (row.state !== 'pending') {
          results.set(row.id, { kind: 'skipped', state: row.state });
          continue;
        }
        const channel = row.channel as Channel;
        const payload = (row.payload ?? {}) as Record<string, unknown>;
        const notification = parseNotification(channel, payload);
        if (notification.ok) {
          parsed.push({ ...row, channel, payload, notice: notification.notice });
          continue;
        }
        finished.push({
          id: row.id,
          state: 'quarantined',
          outcome: 'unparseable',
          reason: notification.reason,
        });
        results.set(row.id, {
          kind: 'quarantined',
          reason: notification.reason,
          receivedAt: row.receivedAt,
        });
      }

      const withGateway = deps.gateway !== null;
      const toApply = parsed.map((row): NoticeToApply => ({
        notice: row.notice,
        context: { source: row.channel, inboxEventId: row.id },
        defer: withGateway && row.channel === 'webhook',
      }));
      const outcomes = await applyNotices(tx, toApply, watch, { deferConfirm: withGateway });
      const applied = parsed.flatMap((row, index) => {
        const outcome = outcomes[index]!;
        if (outcome !== 'deferred') return [{ row, applied: appliedAsReceived(outcome) }];
        results.set(row.id, { kind: 'alone' });
        return [];
      });

      const candidates = applied.flatMap(({ row, applied: result }): CrossChannelCandidate[] =>
        wantsCrossChannelCheck(row.notice, result)
          ? [
              {
                channel: row.channel,
                notice: row.notice,
                inboxEventId: row.id,
                payloadAmount: payloadAmount(row.payload),
              },
            ]
          : [],
      );
      for (const { row, applied: result } of applied) finished.push(finishedRow(row.id, result));
      const [disagreeing] = await Promise.all([
        recordCrossChannelDisagreements(tx, candidates),
        finishInboxRows(tx, finished),
      ]);
      for (const { row, applied: result } of applied) {
        results.set(
          row.id,
          doneResult(row.notice, result, disagreeing.has(row.id), row.receivedAt),
        );
      }
      return results;
    }),
  );
}

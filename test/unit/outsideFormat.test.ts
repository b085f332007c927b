import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { outsideNotificationFormat } from '../../src/notifications/outsideFormat.js';
import { parseNotification } from '../../src/notifications/parseNotification.js';
import { observeResult } from '../../src/worker/laneWorker.js';
import { doneResult } from '../../src/worker/workerOutcome.js';
import { postbackBody, withdrawalBody } from '../support/fixtures.js';

function noticeOf(channel: 'postback' | 'webhook', body: Record<string, unknown>) {
  const parsed = parseNotification(channel, body);
  if (!parsed.ok) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  return parsed.notice;
}

const failedWithdrawal = (updatedAt: string) =>
  noticeOf('webhook', withdrawalBody({ id: 31, status: 'FAILED', updatedAt }));
const transferSale = noticeOf(
  'postback',
  postbackBody({ id: 32, status: 'PAGO', paymentMethod: 'TRANSFER' }),
);

describe('values outside the notification formats', () => {
  it('are FAILED on a withdrawal and TRANSFER on a sale, nothing else', () => {
    expect(outsideNotificationFormat(failedWithdrawal('2026-11-20T10:00:00Z'))).toEqual({
      field: 'status',
      value: 'FAILED',
    });
    expect(outsideNotificationFormat(transferSale)).toEqual({
      field: 'paymentMethod',
      value: 'TRANSFER',
    });
    const rejected = noticeOf(
      'webhook',
      withdrawalBody({ id: 33, status: 'REJECTED', updatedAt: '2026-11-20T10:00:00Z' }),
    );
    expect(outsideNotificationFormat(rejected)).toBeNull();
    expect(
      outsideNotificationFormat(noticeOf('postback', postbackBody({ id: 34, status: 'PAGO' }))),
    ).toBeNull();
  });

  it('are applied, counted every time, and logged once per record', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const applied = { outcome: 'applied', confirmed: true, needsReconcile: false } as const;
    for (const [index, notice] of [
      failedWithdrawal('2026-11-20T10:00:00Z'),
      failedWithdrawal('2026-11-20T10:05:00Z'),
      transferSale,
    ].entries()) {
      observeResult(doneResult(notice, applied, false, new Date()), 100 + index, {
        metrics,
        logger,
      });
    }
    const counted = await metrics.notificationsOutsideFormat.get();
    expect(
      Object.fromEntries(counted.values.map((v) => [String(v.labels.value), v.value])),
    ).toEqual({ FAILED: 2, TRANSFER: 1 });
    const logged = lines.filter((line) =>
      /outside the documented notification format/.test(String(line.msg)),
    );
    expect(logged.map((line) => [line.resource, line.id])).toEqual([
      ['withdrawal', 31],
      ['sale', 32],
    ]);
  });
});

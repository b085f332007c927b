import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WATCH_POLICY,
  checkIntervalFor,
  nextReconcileAt,
} from '../../src/domain/reconcileSchedule.js';
import { SALE_STATUSES, PAYMENT_METHODS } from '../../src/domain/saleMachine.js';
import { buildBoletoLine } from '../../src/sandbox/domain/boletoCode.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const created = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(created.getTime() + ms);
const sale = (
  status: (typeof SALE_STATUSES)[number],
  paymentMethod: (typeof PAYMENT_METHODS)[number],
  completedAt: Date | null = null,
) => ({ resource: 'sale', status, paymentMethod, createdAt: created, completedAt }) as const;

describe('checkIntervalFor', () => {
  it('checks young rows often and old rows rarely', () => {
    expect(checkIntervalFor(10 * MIN)).toBe(5 * MIN);
    expect(checkIntervalFor(5 * HOUR)).toBe(30 * MIN);
    expect(checkIntervalFor(3 * DAY)).toBe(6 * HOUR);
    expect(checkIntervalFor(10 * DAY)).toBe(DAY);
    expect(checkIntervalFor(100 * DAY)).toBe(3 * DAY);
  });

  it('moves to the next step exactly at its age', () => {
    expect(checkIntervalFor(-DAY)).toBe(5 * MIN);
    expect(checkIntervalFor(HOUR - 1)).toBe(5 * MIN);
    expect(checkIntervalFor(HOUR)).toBe(30 * MIN);
    expect(checkIntervalFor(DAY - 1)).toBe(30 * MIN);
    expect(checkIntervalFor(DAY)).toBe(6 * HOUR);
    expect(checkIntervalFor(7 * DAY)).toBe(DAY);
    expect(checkIntervalFor(30 * DAY - 1)).toBe(DAY);
    expect(checkIntervalFor(30 * DAY)).toBe(3 * DAY);
    expect(checkIntervalFor(Number.MAX_SAFE_INTEGER)).toBe(3 * DAY);
  });

  it('never shrinks as a row ages', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        (a, b) => checkIntervalFor(Math.min(a, b)) <= checkIntervalFor(Math.max(a, b)),
      ),
    );
  });
});

describe('nextReconcileAt', () => {
  it('stops watching final sales and withdrawals', () => {
    for (const status of ['CANCELADO', 'RECUSADO', 'ESTORNADO'] as const) {
      expect(nextReconcileAt(sale(status, 'PIX'), at(MIN))).toBeNull();
    }
    for (const status of ['COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'] as const) {
      expect(
        nextReconcileAt({ resource: 'withdrawal', status, createdAt: created }, at(MIN)),
      ).toBeNull();
    }
  });

  it('watches a young processing card sale every few minutes, an old dispute daily', () => {
    expect(nextReconcileAt(sale('EM_PROCESSAMENTO', 'CREDIT_CARD'), at(10 * MIN))).toEqual(
      at(15 * MIN),
    );
    expect(nextReconcileAt(sale('MED', 'PIX'), at(20 * DAY))).toEqual(at(21 * DAY));
    expect(
      nextReconcileAt(
        { resource: 'withdrawal', status: 'PROCESSING', createdAt: created },
        at(2 * HOUR),
      ),
    ).toEqual(at(2 * HOUR + 30 * MIN));
  });

  it('keeps a paid PIX sale under watch through the MED window, then lets go', () => {
    const paid = sale('PAGO', 'PIX', created);
    expect(nextReconcileAt(paid, at(60 * DAY))).toEqual(at(63 * DAY));
    expect(nextReconcileAt(paid, at(89 * DAY))).toEqual(at(90 * DAY));
    expect(nextReconcileAt(paid, at(90 * DAY))).toBeNull();
  });

  it('keeps a paid card sale under watch through the chargeback window', () => {
    for (const method of ['CREDIT_CARD', 'DEBIT_CARD'] as const) {
      const paid = sale('PAGO', method, created);
      expect(nextReconcileAt(paid, at(120 * DAY)), method).toEqual(at(123 * DAY));
      expect(nextReconcileAt(paid, at(179 * DAY)), method).toEqual(at(180 * DAY));
      expect(nextReconcileAt(paid, at(180 * DAY)), method).toBeNull();
    }
  });

  it('keeps a paid boleto or transfer sale under watch for the paid window only', () => {
    for (const method of ['BOLETO', 'TRANSFER'] as const) {
      const paid = sale('PAGO', method, created);
      expect(nextReconcileAt(paid, at(29 * DAY)), method).toEqual(at(30 * DAY));
      expect(nextReconcileAt(paid, at(30 * DAY)), method).toBeNull();
    }
  });

  it('measures the paid window from completion when known', () => {
    const paid = sale('PAGO', 'PIX', at(30 * DAY));
    expect(nextReconcileAt(paid, at(100 * DAY))).not.toBeNull();
    expect(nextReconcileAt(paid, at(120 * DAY))).toBeNull();
  });

  it('watches pending PIX and boleto until expiry plus the grace', () => {
    const pixDeadline =
      (DEFAULT_WATCH_POLICY.pixExpiryHours + DEFAULT_WATCH_POLICY.pendingGraceHours) * HOUR;
    expect(nextReconcileAt(sale('PENDENTE', 'PIX'), at(pixDeadline - MIN))).toEqual(
      at(pixDeadline),
    );
    expect(nextReconcileAt(sale('PENDENTE', 'PIX'), at(pixDeadline))).toBeNull();
    // No code to read a due date from: due boletoExpiryDays after creation (Sunday 2026-01-04),
    // compensated by the end of the third business day after (Wednesday 2026-01-07, São Paulo).
    const boletoDeadline = new Date('2026-01-08T02:59:59.999Z').getTime() - created.getTime();
    const graced = boletoDeadline + DEFAULT_WATCH_POLICY.pendingGraceHours * HOUR;
    expect(nextReconcileAt(sale('PENDENTE', 'BOLETO'), at(graced - HOUR))).toEqual(at(graced));
    expect(nextReconcileAt(sale('PENDENTE', 'BOLETO'), at(graced + 1))).toBeNull();
  });

  it('watches a pending PIX until its own expiresAt, however far, plus the grace', () => {
    const pix = { ...sale('PENDENTE', 'PIX'), pixExpiresAt: at(10 * DAY) };
    const grace = DEFAULT_WATCH_POLICY.pendingGraceHours * HOUR;
    expect(nextReconcileAt(pix, at(5 * DAY))).not.toBeNull();
    expect(nextReconcileAt(pix, at(10 * DAY + grace - MIN))).toEqual(at(10 * DAY + grace));
    expect(nextReconcileAt(pix, at(10 * DAY + grace))).toBeNull();
    const soon = { ...sale('PENDENTE', 'PIX'), pixExpiresAt: at(HOUR) };
    expect(nextReconcileAt(soon, at(HOUR + grace))).toBeNull();
  });

  it('watches a pending boleto until 3 business days after the due date its code carries', () => {
    // Due Friday 2026-01-30: compensated by the end of Wednesday 2026-02-04 (weekend skipped).
    const boletoCode = buildBoletoLine({
      saleId: 77,
      amountCents: 15000,
      dueDate: new Date('2026-01-30T00:00:00Z'),
    });
    const boleto = { ...sale('PENDENTE', 'BOLETO'), boletoCode };
    const end = new Date('2026-02-05T02:59:59.999Z').getTime() - created.getTime();
    const graced = end + DEFAULT_WATCH_POLICY.pendingGraceHours * HOUR;
    expect(nextReconcileAt(boleto, at(20 * DAY))).not.toBeNull();
    expect(nextReconcileAt(boleto, at(graced - MIN))).toEqual(at(graced));
    expect(nextReconcileAt(boleto, at(graced))).toBeNull();
  });

  it('gives no deadline to a sale that is pending on another method, or failed', () => {
    // Past every expiry, still watched: a card or transfer sale, or a failed boleto, can still move.
    const late = at(40 * DAY);
    const inThreeDays = at(43 * DAY);
    expect(nextReconcileAt(sale('PENDENTE', 'CREDIT_CARD'), late)).toEqual(inThreeDays);
    expect(nextReconcileAt(sale('PENDENTE', 'TRANSFER'), late)).toEqual(inThreeDays);
    expect(nextReconcileAt(sale('FALHA', 'BOLETO'), late)).toEqual(inThreeDays);
    expect(nextReconcileAt(sale('FALHA', 'PIX'), late)).toEqual(inThreeDays);
  });

  it('is always in the future when not null', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SALE_STATUSES),
        fc.constantFrom(...PAYMENT_METHODS),
        fc.integer({ min: 0, max: 400 * DAY }),
        (status, method, age) => {
          const next = nextReconcileAt(sale(status, method, created), at(age));
          return next === null || next.getTime() > at(age).getTime();
        },
      ),
    );
  });
});

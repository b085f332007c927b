import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WATCH_POLICY,
  checkIntervalFor,
  nextReconcileAt,
} from '../../src/domain/reconcileSchedule.js';
import { SALE_STATUSES, PAYMENT_METHODS } from '../../src/domain/saleMachine.js';

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
    const boletoDeadline =
      DEFAULT_WATCH_POLICY.boletoExpiryDays * DAY + DEFAULT_WATCH_POLICY.pendingGraceHours * HOUR;
    expect(nextReconcileAt(sale('PENDENTE', 'BOLETO'), at(boletoDeadline - HOUR))).toEqual(
      at(boletoDeadline),
    );
    expect(nextReconcileAt(sale('PENDENTE', 'BOLETO'), at(boletoDeadline + 1))).toBeNull();
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

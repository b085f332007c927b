import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  PAYMENT_METHODS,
  SALE_EDGES,
  SALE_FINAL_STATUSES,
  SALE_STATUSES,
  canReachSale,
  decideSale,
  isFinalSaleStatus,
} from '../../src/domain/saleMachine.js';
import type { PaymentMethod, SaleDecision, SaleStatus } from '../../src/domain/saleMachine.js';

// The oracle, written out from docs/gateway.md 3.1 independently of the module under test.
const SPEC_EDGES: Record<SaleStatus, SaleStatus[]> = {
  PENDENTE: ['PAGO', 'CANCELADO', 'FALHA', 'EM_PROCESSAMENTO'],
  EM_PROCESSAMENTO: ['PAGO', 'RECUSADO', 'FALHA'],
  PAGO: ['ESTORNADO', 'CHARGEBACK', 'MED'],
  FALHA: ['PAGO', 'CANCELADO'],
  CHARGEBACK: ['PAGO', 'ESTORNADO'],
  MED: ['PAGO', 'ESTORNADO'],
  CANCELADO: [],
  RECUSADO: [],
  ESTORNADO: [],
};
const isCard = (m: PaymentMethod) => m === 'CREDIT_CARD' || m === 'DEBIT_CARD';
// MED is PIX only; CHARGEBACK and the card processor's EM_PROCESSAMENTO and RECUSADO, cards only.
const CARD_ONLY: ReadonlySet<SaleStatus> = new Set(['CHARGEBACK', 'EM_PROCESSAMENTO', 'RECUSADO']);
const allowed = (m: PaymentMethod, s: SaleStatus) =>
  s === 'MED' ? m === 'PIX' : CARD_ONLY.has(s) ? isCard(m) : true;
const onCycle = (m: PaymentMethod, a: SaleStatus, b: SaleStatus) => {
  const pair = [a, b].sort().join('↔');
  return (pair === 'MED↔PAGO' && m === 'PIX') || (pair === 'CHARGEBACK↔PAGO' && isCard(m));
};
// docs/gateway.md 6.2: these are never notified.
const NOT_NOTIFIED: ReadonlySet<SaleStatus> = new Set(['PENDENTE', 'EM_PROCESSAMENTO']);

const row = (status: SaleStatus, paymentMethod: PaymentMethod) => ({ status, paymentMethod });

describe('sale machine data', () => {
  it('has exactly the edges of docs/gateway.md 3.1', () => {
    for (const s of SALE_STATUSES) expect([...SALE_EDGES[s]].sort()).toEqual(SPEC_EDGES[s].sort());
  });

  it('has CANCELADO, RECUSADO and ESTORNADO as its only final statuses', () => {
    expect([...SALE_FINAL_STATUSES].sort()).toEqual(['CANCELADO', 'ESTORNADO', 'RECUSADO']);
    expect(SALE_STATUSES.filter(isFinalSaleStatus).sort()).toEqual([
      'CANCELADO',
      'ESTORNADO',
      'RECUSADO',
    ]);
  });
});

describe('canReachSale', () => {
  it('reaches nothing on a payment method it does not know', () => {
    const unknown = 'CHEQUE' as PaymentMethod;
    expect(canReachSale('PIX', 'PENDENTE', 'PAGO')).toBe(true);
    expect(canReachSale(unknown, 'PENDENTE', 'PAGO')).toBe(false);
  });
});

describe('decideSale', () => {
  it('says why a notification is stale or invalid', () => {
    expect(decideSale(row('CANCELADO', 'BOLETO'), row('PAGO', 'BOLETO'))).toEqual({
      kind: 'stale',
      reason: 'CANCELADO is final',
    });
    expect(decideSale(row('PAGO', 'PIX'), row('PENDENTE', 'PIX'))).toEqual({
      kind: 'stale',
      reason: 'PENDENTE cannot follow PAGO on a PIX sale',
    });
    expect(decideSale(row('PAGO', 'CREDIT_CARD'), row('MED', 'PIX'))).toEqual({
      kind: 'invalid',
      reason: 'MED is impossible on a CREDIT_CARD sale',
    });
  });

  type Case = [
    name: string,
    mirror: ReturnType<typeof row> | null,
    notified: ReturnType<typeof row>,
    expected: SaleDecision['kind'],
  ];
  const cases: Case[] = [
    ['first sight inserts', null, row('PAGO', 'PIX'), 'insert'],
    ['first sight of PENDENTE inserts', null, row('PENDENTE', 'BOLETO'), 'insert'],
    ['first sight of MED on a PIX sale inserts', null, row('MED', 'PIX'), 'insert'],
    ['first sight of MED on CREDIT_CARD is invalid', null, row('MED', 'CREDIT_CARD'), 'invalid'],
    ['first sight of CHARGEBACK on PIX is invalid', null, row('CHARGEBACK', 'PIX'), 'invalid'],
    ['EM_PROCESSAMENTO on PIX is invalid', null, row('EM_PROCESSAMENTO', 'PIX'), 'invalid'],
    [
      'RECUSADO on BOLETO is invalid',
      row('PENDENTE', 'BOLETO'),
      row('RECUSADO', 'BOLETO'),
      'invalid',
    ],
    [
      'RECUSADO on a card applies',
      row('PENDENTE', 'CREDIT_CARD'),
      row('RECUSADO', 'CREDIT_CARD'),
      'apply',
    ],
    ['same status is a noop', row('PAGO', 'PIX'), row('PAGO', 'PIX'), 'noop'],
    ['same final status is a noop', row('ESTORNADO', 'PIX'), row('ESTORNADO', 'PIX'), 'noop'],
    ['ESTORNADO then PAGO stays stale', row('ESTORNADO', 'PIX'), row('PAGO', 'PIX'), 'stale'],
    ['CANCELADO then PAGO is stale', row('CANCELADO', 'BOLETO'), row('PAGO', 'BOLETO'), 'stale'],
    [
      'RECUSADO then FALHA is stale',
      row('RECUSADO', 'DEBIT_CARD'),
      row('FALHA', 'DEBIT_CARD'),
      'stale',
    ],
    ['PAGO then PENDENTE is stale', row('PAGO', 'PIX'), row('PENDENTE', 'PIX'), 'stale'],
    ['PAGO then FALHA is stale', row('PAGO', 'BOLETO'), row('FALHA', 'BOLETO'), 'stale'],
    ['PAGO then CANCELADO is stale', row('PAGO', 'PIX'), row('CANCELADO', 'PIX'), 'stale'],
    ['MED then FALHA is stale', row('MED', 'PIX'), row('FALHA', 'PIX'), 'stale'],
    [
      'FALHA then RECUSADO is stale',
      row('FALHA', 'CREDIT_CARD'),
      row('RECUSADO', 'CREDIT_CARD'),
      'stale',
    ],
    ['PENDENTE then PAGO applies', row('PENDENTE', 'PIX'), row('PAGO', 'PIX'), 'apply'],
    [
      'PENDENTE then ESTORNADO applies (missed PAGO)',
      row('PENDENTE', 'PIX'),
      row('ESTORNADO', 'PIX'),
      'apply',
    ],
    ['PENDENTE then MED applies on PIX', row('PENDENTE', 'PIX'), row('MED', 'PIX'), 'apply'],
    [
      'EM_PROCESSAMENTO then CANCELADO applies via FALHA',
      row('EM_PROCESSAMENTO', 'CREDIT_CARD'),
      row('CANCELADO', 'CREDIT_CARD'),
      'apply',
    ],
    [
      'EM_PROCESSAMENTO then CHARGEBACK applies on card',
      row('EM_PROCESSAMENTO', 'DEBIT_CARD'),
      row('CHARGEBACK', 'DEBIT_CARD'),
      'apply',
    ],
    [
      'FALHA then MED applies on PIX via missed PAGO',
      row('FALHA', 'PIX'),
      row('MED', 'PIX'),
      'apply',
    ],
    [
      'FALHA then CHARGEBACK applies on card',
      row('FALHA', 'CREDIT_CARD'),
      row('CHARGEBACK', 'CREDIT_CARD'),
      'apply',
    ],
    ['MED then ESTORNADO applies', row('MED', 'PIX'), row('ESTORNADO', 'PIX'), 'apply'],
    [
      'CHARGEBACK then ESTORNADO applies',
      row('CHARGEBACK', 'CREDIT_CARD'),
      row('ESTORNADO', 'CREDIT_CARD'),
      'apply',
    ],
    ['PAGO then MED confirms on PIX', row('PAGO', 'PIX'), row('MED', 'PIX'), 'confirm'],
    ['MED then PAGO confirms on PIX', row('MED', 'PIX'), row('PAGO', 'PIX'), 'confirm'],
    [
      'PAGO then CHARGEBACK confirms on card',
      row('PAGO', 'DEBIT_CARD'),
      row('CHARGEBACK', 'DEBIT_CARD'),
      'confirm',
    ],
    [
      'CHARGEBACK then PAGO confirms on card',
      row('CHARGEBACK', 'CREDIT_CARD'),
      row('PAGO', 'CREDIT_CARD'),
      'confirm',
    ],
    [
      'MED on a card sale is invalid',
      row('PAGO', 'CREDIT_CARD'),
      row('MED', 'CREDIT_CARD'),
      'invalid',
    ],
    ['MED on a boleto sale is invalid', row('PENDENTE', 'BOLETO'), row('MED', 'BOLETO'), 'invalid'],
    ['CHARGEBACK on PIX is invalid', row('PAGO', 'PIX'), row('CHARGEBACK', 'PIX'), 'invalid'],
    [
      'CHARGEBACK on BOLETO is invalid',
      row('PAGO', 'BOLETO'),
      row('CHARGEBACK', 'BOLETO'),
      'invalid',
    ],
    [
      'CHARGEBACK on TRANSFER is invalid',
      row('PAGO', 'TRANSFER'),
      row('CHARGEBACK', 'TRANSFER'),
      'invalid',
    ],
    [
      'invalid is checked before final',
      row('ESTORNADO', 'CREDIT_CARD'),
      row('MED', 'CREDIT_CARD'),
      'invalid',
    ],
    [
      "the mirror's method wins over the notification's (invalid)",
      row('PAGO', 'CREDIT_CARD'),
      row('MED', 'PIX'),
      'invalid',
    ],
    [
      "the mirror's method wins over the notification's (valid)",
      row('PAGO', 'PIX'),
      row('MED', 'CREDIT_CARD'),
      'confirm',
    ],
  ];

  it.each(cases)('%s', (_name, mirror, notified, expected) => {
    const decision = decideSale(mirror, notified);
    expect(decision.kind).toBe(expected);
    if (decision.kind === 'apply' || decision.kind === 'confirm') {
      expect(decision).toEqual({ kind: decision.kind, from: mirror?.status, to: notified.status });
    }
    if (decision.kind === 'stale' || decision.kind === 'invalid') {
      expect(decision.reason).not.toBe('');
    }
  });

  const statusArb = fc.constantFrom(...SALE_STATUSES);
  const methodArb = fc.constantFrom(...PAYMENT_METHODS);
  const factsArb = fc.record({ status: statusArb, paymentMethod: methodArb });

  it('is total and well formed over every status × method × mirror', () => {
    fc.assert(
      fc.property(fc.option(factsArb, { nil: null }), factsArb, (mirror, notified) => {
        const d = decideSale(mirror, notified);
        const method = mirror?.paymentMethod ?? notified.paymentMethod;
        expect(d.kind === 'invalid').toBe(!allowed(method, notified.status));
        if (d.kind === 'invalid') return;
        expect(d.kind === 'insert').toBe(mirror === null);
        if (mirror === null) return;
        expect(d.kind === 'noop').toBe(mirror.status === notified.status);
        expect(d.kind === 'confirm').toBe(
          mirror.status !== notified.status && onCycle(method, mirror.status, notified.status),
        );
        if (d.kind === 'apply' || d.kind === 'confirm') {
          expect(d.from).toBe(mirror.status);
          expect(d.to).toBe(notified.status);
        }
      }),
      { numRuns: 3000 },
    );
  });

  // A record's real path: a random walk from PENDENTE that respects the method rules.
  const realPath = fc
    .record({ method: methodArb, steps: fc.array(fc.nat(), { maxLength: 12 }) })
    .map(({ method, steps }) => {
      const path: SaleStatus[] = ['PENDENTE'];
      for (const step of steps) {
        const options = SPEC_EDGES[path[path.length - 1]!].filter((s) => allowed(method, s));
        if (options.length === 0) break;
        path.push(options[step % options.length]!);
      }
      return { method, notified: path.filter((s) => !NOT_NOTIFIED.has(s)) };
    });

  // Every notification delivered at least once, some more than once, in any order.
  const deliveries = realPath.chain(({ method, notified }) => {
    const n = notified.length;
    if (n === 0) return fc.constant({ method, notified, order: [] as number[] });
    return fc
      .array(fc.nat({ max: n - 1 }), { maxLength: 2 * n })
      .chain((extra) => {
        const all = [...notified.keys(), ...extra];
        return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
      })
      .map((order) => ({ method, notified, order }));
  });

  it('converges on the last notified status of a real path, or marks the row', () => {
    fc.assert(
      fc.property(deliveries, ({ method, notified, order }) => {
        let state: SaleStatus | null = null;
        let marked = false;
        for (const i of order) {
          const status = notified[i]!;
          const d = decideSale(state === null ? null : row(state, method), row(status, method));
          expect(d.kind).not.toBe('invalid');
          if (d.kind === 'insert' || d.kind === 'apply') state = status;
          if (d.kind === 'confirm') {
            expect(onCycle(method, d.from, d.to)).toBe(true);
            state = status;
            marked = true;
          }
        }
        if (!marked) expect(state).toBe(notified[notified.length - 1] ?? null);
      }),
      { numRuns: 2000 },
    );
  });

  it('confirms at least once when a path loops through a cycle', () => {
    // Guards the property above against being vacuous: loops do get generated and marked.
    let loopsSeen = 0;
    fc.assert(
      fc.property(deliveries, ({ method, notified, order }) => {
        const distinct = new Set(notified);
        const looped = distinct.has('PAGO') && (distinct.has('MED') || distinct.has('CHARGEBACK'));
        if (!looped || distinct.has('ESTORNADO')) return;
        loopsSeen++;
        let state: SaleStatus | null = null;
        let confirmed = false;
        for (const i of order) {
          const status = notified[i]!;
          const d = decideSale(state === null ? null : row(state, method), row(status, method));
          if (d.kind === 'confirm') confirmed = true;
          if (d.kind !== 'noop' && d.kind !== 'stale') state = status;
        }
        expect(confirmed).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(loopsSeen).toBeGreaterThan(0);
  });
});

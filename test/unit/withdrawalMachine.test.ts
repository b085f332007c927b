import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  WITHDRAWAL_EDGES,
  WITHDRAWAL_FINAL_STATUSES,
  WITHDRAWAL_STATUSES,
  decideWithdrawal,
  isFinalWithdrawalStatus,
  sameWithdrawalOutcome,
} from '../../src/domain/withdrawalMachine.js';
import type { WithdrawalDecision, WithdrawalStatus } from '../../src/domain/withdrawalMachine.js';

const FINALS = ['COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'] as const;
const t = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes));
const mirror = (status: WithdrawalStatus, gatewayUpdatedAt: Date | null = null) => ({
  status,
  gatewayUpdatedAt,
});
const note = (status: WithdrawalStatus, updatedAt: Date | null = null) => ({ status, updatedAt });

describe('withdrawal machine data', () => {
  it('has the edges of docs/gateway.md 3.2', () => {
    expect([...WITHDRAWAL_EDGES.PENDING].sort()).toEqual(['PROCESSING', ...FINALS].sort());
    expect([...WITHDRAWAL_EDGES.PROCESSING].sort()).toEqual([...FINALS].sort());
    for (const s of FINALS) expect(WITHDRAWAL_EDGES[s]).toEqual([]);
  });

  it('has COMPLETED, REJECTED, FAILED and CANCELLED as final', () => {
    expect([...WITHDRAWAL_FINAL_STATUSES].sort()).toEqual([...FINALS].sort());
    expect(WITHDRAWAL_STATUSES.filter(isFinalWithdrawalStatus).sort()).toEqual([...FINALS].sort());
  });

  it('treats REJECTED and FAILED as the same outcome, and nothing else', () => {
    for (const a of WITHDRAWAL_STATUSES) {
      for (const b of WITHDRAWAL_STATUSES) {
        const expected = a === b || [a, b].sort().join() === 'FAILED,REJECTED';
        expect(sameWithdrawalOutcome(a, b)).toBe(expected);
      }
    }
  });
});

describe('decideWithdrawal', () => {
  it('says why a notification is stale', () => {
    expect(decideWithdrawal(mirror('PROCESSING', t(2)), note('COMPLETED', t(1)))).toEqual({
      kind: 'stale',
      reason: "updatedAt older than the mirror's",
    });
    expect(decideWithdrawal(mirror('COMPLETED', t(1)), note('PROCESSING', t(2)))).toEqual({
      kind: 'stale',
      reason: 'COMPLETED is final',
    });
    expect(decideWithdrawal(mirror('PROCESSING', t(1)), note('PENDING', t(2)))).toEqual({
      kind: 'stale',
      reason: 'PENDING cannot follow PROCESSING',
    });
  });

  type Mirror = ReturnType<typeof mirror>;
  type Note = ReturnType<typeof note>;
  const cases: [string, Mirror | null, Note, WithdrawalDecision['kind']][] = [
    ['first sight inserts', null, note('PROCESSING', t(1)), 'insert'],
    ['first sight of a final status inserts', null, note('REJECTED', t(1)), 'insert'],
    ['PENDING then PROCESSING applies', mirror('PENDING', t(0)), note('PROCESSING', t(1)), 'apply'],
    [
      'PENDING then COMPLETED applies (missed PROCESSING)',
      mirror('PENDING', t(0)),
      note('COMPLETED', t(2)),
      'apply',
    ],
    [
      'PROCESSING then REJECTED applies',
      mirror('PROCESSING', t(1)),
      note('REJECTED', t(2)),
      'apply',
    ],
    [
      'PROCESSING then CANCELLED applies without timestamps',
      mirror('PROCESSING'),
      note('CANCELLED'),
      'apply',
    ],
    [
      'COMPLETED then an older PROCESSING stays COMPLETED',
      mirror('COMPLETED', t(2)),
      note('PROCESSING', t(1)),
      'stale',
    ],
    [
      'COMPLETED then PROCESSING without timestamps is stale',
      mirror('COMPLETED'),
      note('PROCESSING'),
      'stale',
    ],
    [
      'PROCESSING then PENDING (newer timestamp) is stale',
      mirror('PROCESSING', t(1)),
      note('PENDING', t(2)),
      'stale',
    ],
    [
      'an older timestamp is stale even for a reachable status',
      mirror('PENDING', t(5)),
      note('COMPLETED', t(1)),
      'stale',
    ],
    [
      'an older timestamp is stale even for the same status',
      mirror('PROCESSING', t(5)),
      note('PROCESSING', t(1)),
      'stale',
    ],
    ['an equal timestamp is not stale', mirror('PENDING', t(1)), note('PROCESSING', t(1)), 'apply'],
    [
      'a known timestamp on one side only does not make it stale',
      mirror('PENDING', null),
      note('PROCESSING', t(1)),
      'apply',
    ],
    ['same status is a noop', mirror('PROCESSING', t(1)), note('PROCESSING', t(1)), 'noop'],
    ['REJECTED then FAILED is a noop', mirror('REJECTED', t(2)), note('FAILED', t(2)), 'noop'],
    ['FAILED then REJECTED is a noop', mirror('FAILED', t(2)), note('REJECTED', t(3)), 'noop'],
    [
      'COMPLETED then a newer REJECTED is stale (final)',
      mirror('COMPLETED', t(2)),
      note('REJECTED', t(3)),
      'stale',
    ],
    [
      'CANCELLED then a newer COMPLETED is stale (final)',
      mirror('CANCELLED', t(2)),
      note('COMPLETED', t(3)),
      'stale',
    ],
  ];

  it.each(cases)('%s', (_name, m, n, expected) => {
    const d = decideWithdrawal(m, n);
    expect(d.kind).toBe(expected);
    if (d.kind === 'apply') expect(d).toEqual({ kind: 'apply', from: m?.status, to: n.status });
  });

  it('is total over every status and timestamp combination', () => {
    const statusArb = fc.constantFrom(...WITHDRAWAL_STATUSES);
    const dateArb = fc.option(fc.date({ noInvalidDate: false }), { nil: null });
    fc.assert(
      fc.property(
        fc.option(fc.record({ status: statusArb, gatewayUpdatedAt: dateArb }), { nil: null }),
        fc.record({ status: statusArb, updatedAt: dateArb }),
        (m, n) => {
          const d = decideWithdrawal(m, n);
          expect(['insert', 'apply', 'noop', 'stale']).toContain(d.kind);
          expect(d.kind === 'insert').toBe(m === null);
        },
      ),
      { numRuns: 2000 },
    );
  });

  // A real path PENDING → [PROCESSING] → [final], updatedAt strictly increasing along it.
  // A final REJECTED may also be seen in its read form, FAILED (the reconciler's view).
  const realPath = fc
    .record({
      processing: fc.boolean(),
      final: fc.option(fc.constantFrom(...FINALS), { nil: null }),
      gapsMs: fc.array(fc.integer({ min: 1, max: 3_600_000 }), { minLength: 3, maxLength: 3 }),
    })
    .map(({ processing, final, gapsMs }) => {
      const statuses: WithdrawalStatus[] = ['PENDING'];
      if (processing) statuses.push('PROCESSING');
      if (final !== null) statuses.push(final);
      let at = t(0).getTime();
      return statuses.map((status, i) => ({ status, updatedAt: new Date((at += gapsMs[i]!)) }));
    });

  const deliveries = realPath.chain((path) =>
    fc
      .array(fc.nat({ max: path.length - 1 }), { maxLength: 2 * path.length })
      .chain((extra) => {
        const all = [...path.keys(), ...extra];
        return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
      })
      .chain((order) =>
        fc
          .array(fc.record({ dropTime: fc.boolean(), readForm: fc.boolean() }), {
            minLength: order.length,
            maxLength: order.length,
          })
          .map((how) =>
            order.map((i, k) => {
              const { status, updatedAt } = path[i]!;
              const { dropTime, readForm } = how[k]!;
              return {
                status: status === 'REJECTED' && readForm ? ('FAILED' as const) : status,
                updatedAt: dropTime ? null : updatedAt,
              };
            }),
          ),
      )
      .map((notes) => ({ last: path[path.length - 1]!.status, notes })),
  );

  it('ends at the last status of a real path whatever the order and duplication', () => {
    fc.assert(
      fc.property(deliveries, ({ last, notes }) => {
        let state = null as ReturnType<typeof mirror> | null;
        for (const n of notes) {
          const d = decideWithdrawal(state, n);
          // The worker keeps the last known gateway time when a delivery carries none.
          if (d.kind === 'insert' || d.kind === 'apply') {
            state = mirror(n.status, n.updatedAt ?? state?.gatewayUpdatedAt ?? null);
          }
        }
        expect(state).not.toBeNull();
        expect(state !== null && sameWithdrawalOutcome(state.status, last)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

/**
 * Bodies of the control API's read answers.
 */
import type { SandboxStore } from '../store.js';
import { reaisStringFromCents } from '../../domain/money.js';
import { signedReaisString } from '../wire/units.js';

export function balanceForm(store: SandboxStore) {
  return {
    availableCents: store.availableCents(),
    reserveCents: store.reserveCents(),
    available: signedReaisString(store.availableCents()),
    reserve: reaisStringFromCents(store.reserveCents()),
  };
}

export function countByStatus(records: Iterable<{ readonly status: string }>): {
  count: number;
  byStatus: Record<string, number>;
} {
  const byStatus: Record<string, number> = {};
  let count = 0;
  for (const record of records) {
    count += 1;
    byStatus[record.status] = (byStatus[record.status] ?? 0) + 1;
  }
  return { count, byStatus };
}

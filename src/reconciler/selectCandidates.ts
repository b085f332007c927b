import type { Sql } from '../db/client.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';

export type PassSelection =
  /** What the scheduler runs: rows the worker marked first, then rows whose check is due. */
  | { readonly kind: 'due'; readonly limit: number }
  /** Every non-final row, PAGO within its watch window included, whatever its next check. */
  | { readonly kind: 'all-open' }
  | { readonly kind: 'sale'; readonly id: number }
  | { readonly kind: 'withdrawal'; readonly id: number };

export interface Candidate {
  readonly resource: 'sale' | 'withdrawal';
  readonly id: number;
}

const FINAL_SALE = ['CANCELADO', 'RECUSADO', 'ESTORNADO'];
const FINAL_WITHDRAWAL = ['COMPLETED', 'REJECTED', 'FAILED', 'CANCELLED'];

export async function selectCandidates(
  sql: Sql,
  selection: PassSelection,
  policy: WatchPolicy,
): Promise<Candidate[]> {
  switch (selection.kind) {
    case 'sale':
    case 'withdrawal':
      return [{ resource: selection.kind, id: selection.id }];
    case 'due': {
      const rows = await sql<{ resource: 'sale' | 'withdrawal'; id: string }[]>`
        select resource, id from (
          select 'sale' as resource, id, reconcile_requested_at, next_reconcile_at from sales
           where reconcile_requested_at is not null or next_reconcile_at <= now()
          union all
          select 'withdrawal', id, reconcile_requested_at, next_reconcile_at from withdrawals
           where reconcile_requested_at is not null or next_reconcile_at <= now()
        ) due
        order by reconcile_requested_at nulls last, next_reconcile_at
        limit ${selection.limit}`;
      return rows.map((row) => ({ resource: row.resource, id: Number(row.id) }));
    }
    case 'all-open': {
      const rows = await sql<{ resource: 'sale' | 'withdrawal'; id: string }[]>`
        select 'sale' as resource, id from sales
         where status <> all(${FINAL_SALE})
           and (status <> 'PAGO'
                or coalesce(completed_at, created_at, first_seen_at) > now() - make_interval(days =>
                     case payment_method
                       when 'PIX' then ${policy.medWindowDays}::int
                       when 'CREDIT_CARD' then ${policy.chargebackWindowDays}::int
                       when 'DEBIT_CARD' then ${policy.chargebackWindowDays}::int
                       else ${policy.paidWatchDays}::int
                     end))
        union all
        select 'withdrawal', id from withdrawals where status <> all(${FINAL_WITHDRAWAL})
        order by 1, 2`;
      return rows.map((row) => ({ resource: row.resource, id: Number(row.id) }));
    }
  }
}

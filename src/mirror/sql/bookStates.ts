import type { Sql } from '../../db/client.js';

/** What the books read of a record to check it (see src/books/checkBooks.ts). */
export interface RecordBookState {
  readonly resourceType: 'sale' | 'withdrawal';
  readonly id: number;
  readonly status: string;
  readonly amountCents: number;
  readonly netAmountCents: number | null;
  readonly denied: boolean;
}

/** Every sale and withdrawal's state as the journal's rules read it, by resource and id. */
export function recordBookStates(sql: Sql): Promise<RecordBookState[]> {
  return sql<RecordBookState[]>`
    select 'sale' as "resourceType", id, status, amount_cents as "amountCents",
           net_amount_cents as "netAmountCents", denied_at is not null as denied
      from sales
    union all
    select 'withdrawal', id, status, amount_cents, null, denied_at is not null
      from withdrawals
    order by 1, 2`.execute();
}

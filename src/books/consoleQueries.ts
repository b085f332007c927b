import type { Sql } from '../db/client.js';

/**
 * What the console's Books page reads of the journal, on `finance_journal_daily` (days of
 * effective_at in America/Sao_Paulo). Money is signed centavos, bigint until the page converts it.
 */

export interface DayMovement {
  readonly day: string;
  readonly available_cents: string;
  readonly reserved_cents: string;
  /** What each account held at the end of the day: every entry up to it, earlier days included. */
  readonly available_balance_cents: string;
  readonly reserved_balance_cents: string;
  readonly entry_count: string;
}

/**
 * Every day from `from` to `to` (both inclusive, quiet days included): the movement per account
 * and the balances at its end.
 */
export function dailyMovement(sql: Sql, from: string, to: string): Promise<DayMovement[]> {
  return sql<DayMovement[]>`
    with per_day as (
      select day,
             coalesce(sum(amount_cents) filter (where account = 'available'), 0)::int8
               as available_cents,
             coalesce(sum(amount_cents) filter (where account = 'reserved'), 0)::int8
               as reserved_cents,
             sum(entry_count)::int8 as entry_count
        from finance_journal_daily
       group by day),
    opening as (
      select coalesce(sum(available_cents), 0)::int8 as available,
             coalesce(sum(reserved_cents), 0)::int8 as reserved
        from per_day where day < ${from}::date),
    days as (
      select g::date as day
        from generate_series(${from}::date, ${to}::date, interval '1 day') g)
    select to_char(days.day, 'YYYY-MM-DD') as day,
           coalesce(p.available_cents, 0)::int8 as available_cents,
           coalesce(p.reserved_cents, 0)::int8 as reserved_cents,
           (opening.available + sum(coalesce(p.available_cents, 0)) over w)::int8
             as available_balance_cents,
           (opening.reserved + sum(coalesce(p.reserved_cents, 0)) over w)::int8
             as reserved_balance_cents,
           coalesce(p.entry_count, 0)::int8 as entry_count
      from days
      cross join opening
      left join per_day p on p.day = days.day
    window w as (order by days.day)
     order by days.day`.execute();
}

export interface MonthTotal {
  readonly month: string;
  readonly account: string;
  readonly kind: string;
  readonly entry_count: string;
  readonly amount_cents: string;
}

/** The whole months (São Paulo) that the days from `from` to `to` touch, per account and kind. */
export function monthlyTotals(sql: Sql, from: string, to: string): Promise<MonthTotal[]> {
  return sql<MonthTotal[]>`
    select to_char(day, 'YYYY-MM') as month, account, kind,
           sum(entry_count)::int8 as entry_count, sum(amount_cents)::int8 as amount_cents
      from finance_journal_daily
     where day >= date_trunc('month', ${from}::date)
       and day < date_trunc('month', ${to}::date) + interval '1 month'
     group by 1, 2, 3
     order by 1, 2, 3`.execute();
}

import type { Sql } from '../db/client.js';
import type { DayRange } from './dayRange.js';

/** What a total lacks until the gateway's GET has been read for its sales. */
const AWAITING_READ = "awaiting the gateway's read";

/** The finance views' statements (docs/finance.md): each report's rows for a range of days. */

/**
 * Sales per São Paulo day (of creation), payment method and status. Net and fee come from the
 * gateway's read: while no sale of a row has been read they are unknown (null), not R$ 0,00,
 * and the note says how many sales still await the read. One fee: the read's systemFee.
 */
export function dailyTotals(sql: Sql, { from, to }: DayRange) {
  return sql`
    select to_char(day, 'YYYY-MM-DD') as day, payment_method, status, sale_count, gross_cents,
           case when net_unknown_count < sale_count then net_cents end as net_cents,
           case when net_unknown_count < sale_count then system_fee_cents end as system_fee_cents,
           case
             when net_unknown_count = 0 then null
             when net_unknown_count = sale_count then ${AWAITING_READ}
             else net_unknown_count || ' of ' || sale_count || ' ' || ${AWAITING_READ}
           end as note
      from finance_daily_totals
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_daily_totals.day nulls last, payment_method, status`.execute();
}

/** Every dispute (MED or CHARGEBACK) a sale went through, by the day it was observed to open. */
export function disputes(sql: Sql, { from, to }: DayRange) {
  return sql`
    select sale_id, payment_method, dispute, opened_at, resolution, current_status,
           amount_cents, net_amount_cents, reserve_amount_cents
      from finance_disputes
     where (${from}::date is null or (opened_at at time zone 'America/Sao_Paulo')::date >= ${from}::date)
       and (${to}::date is null or (opened_at at time zone 'America/Sao_Paulo')::date <= ${to}::date)
     order by opened_at, sale_id`.execute();
}

/** Withdrawals per São Paulo day and status. */
export function withdrawalsDaily(sql: Sql, { from, to }: DayRange) {
  return sql`
    select to_char(day, 'YYYY-MM-DD') as day, status, withdrawal_count, amount_cents,
           net_amount_cents, fee_total_cents
      from finance_withdrawals_daily
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_withdrawals_daily.day nulls last, status`.execute();
}

/** Discrepancy counts per reconciliation run, and per day for those found outside a run. */
export function discrepanciesByRun(sql: Sql, { from, to }: DayRange) {
  return sql`
    select to_char(day, 'YYYY-MM-DD') as day, run_id, trigger, run_status,
           started_at, finished_at, source, resource_type, field, action, discrepancy_count
      from finance_discrepancies_by_run
     where (${from}::date is null or day >= ${from}::date)
       and (${to}::date is null or day <= ${to}::date)
     order by finance_discrepancies_by_run.day, finance_discrepancies_by_run.run_id nulls last,
              source, resource_type, field, action`.execute();
}


export interface OpenDisputeRow {
  readonly sale_id: number;
  readonly payment_method: string;
  readonly status: string;
  readonly amount_cents: number;
  readonly net_amount_cents: number | null;
  readonly reserve_amount_cents: number | null;
  readonly since: Date | null;
  readonly age_seconds: number | null;
}

/** finance_open_disputes: sales now in MED or CHARGEBACK, the oldest dispute first. */
export function openDisputes(sql: Sql): Promise<OpenDisputeRow[]> {
  return sql<OpenDisputeRow[]>`
    select sale_id, payment_method, status, amount_cents, net_amount_cents,
           reserve_amount_cents, since, floor(extract(epoch from age))::bigint as age_seconds
      from finance_open_disputes
     order by since nulls first, sale_id`;
}

/** Records the gateway denied (twice), by the São Paulo day they were denied. */
export function deniedRecords(sql: Sql, { from, to }: DayRange) {
  return sql`
    select resource_type, resource_id, status, amount_cents, created_at, denied_at, reason
      from finance_denied_records
     where (${from}::date is null or (denied_at at time zone 'America/Sao_Paulo')::date >= ${from}::date)
       and (${to}::date is null or (denied_at at time zone 'America/Sao_Paulo')::date <= ${to}::date)
     order by denied_at, resource_type, resource_id`.execute();
}

/** Records flagged for an operator, by the São Paulo day they were flagged. */
export function flaggedRecords(sql: Sql, { from, to }: DayRange) {
  return sql`
    select resource_type, resource_id, status, status_set_by, disagreeing_reads, flagged_at,
           flag_reason
      from finance_flagged_records
     where (${from}::date is null or (flagged_at at time zone 'America/Sao_Paulo')::date >= ${from}::date)
       and (${to}::date is null or (flagged_at at time zone 'America/Sao_Paulo')::date <= ${to}::date)
     order by flagged_at, resource_type, resource_id`.execute();
}

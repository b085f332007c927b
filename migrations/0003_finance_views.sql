-- Finance views over the mirror (documented in docs/finance.md). Money is bigint centavos.
-- Days are calendar days in America/Sao_Paulo, named explicitly so the session's TimeZone
-- setting never changes a total.
create or replace view finance_daily_totals as
select (s.created_at at time zone 'America/Sao_Paulo')::date as day,
       s.payment_method,
       s.status,
       count(*)::bigint as sale_count,
       sum(s.amount_cents)::bigint as gross_cents,
       coalesce(sum(s.net_amount_cents), 0)::bigint as net_cents,
       count(*) filter (where s.net_amount_cents is null)::bigint as net_unknown_count,
       coalesce(sum(s.system_fee_cents), 0)::bigint as system_fee_cents,
       coalesce(sum(s.fee_cents), 0)::bigint as fee_cents
  from sales s
 group by 1, 2, 3;
--> statement-breakpoint
comment on view finance_daily_totals is
  'Sales per day of created_at (America/Sao_Paulo), payment method and current status; money in centavos. See docs/finance.md.';
--> statement-breakpoint
create or replace view finance_open_disputes as
select s.id as sale_id,
       s.payment_method,
       s.status,
       s.amount_cents,
       s.net_amount_cents,
       s.reserve_amount_cents,
       entered.since,
       now() - entered.since as age,
       floor(extract(epoch from now() - entered.since) / 86400)::integer as age_days
  from sales s
  left join lateral (
        select max(h.recorded_at) as since
          from status_history h
         where h.resource_type = 'sale'
           and h.resource_id = s.id
           and h.to_status = s.status
           and h.from_status is distinct from h.to_status
       ) entered on true
 where s.status in ('MED', 'CHARGEBACK');
--> statement-breakpoint
comment on view finance_open_disputes is
  'Sales now in MED or CHARGEBACK, since when (last entry into that status in status_history) and for how long. See docs/finance.md.';
--> statement-breakpoint
create or replace view finance_withdrawals_daily as
select (w.created_at at time zone 'America/Sao_Paulo')::date as day,
       w.status,
       count(*)::bigint as withdrawal_count,
       sum(w.amount_cents)::bigint as amount_cents,
       coalesce(sum(w.net_amount_cents), 0)::bigint as net_amount_cents,
       coalesce(sum(w.fee_total_cents), 0)::bigint as fee_total_cents
  from withdrawals w
 group by 1, 2;
--> statement-breakpoint
comment on view finance_withdrawals_daily is
  'Withdrawals per day of created_at (America/Sao_Paulo) and current status; money in centavos. See docs/finance.md.';
--> statement-breakpoint
create or replace view finance_discrepancies_by_run as
select r.id as run_id,
       r.trigger,
       r.status as run_status,
       r.started_at,
       r.finished_at,
       (r.started_at at time zone 'America/Sao_Paulo')::date as day,
       d.source,
       d.resource_type,
       d.field,
       d.action,
       count(d.id)::bigint as discrepancy_count
  from reconciliation_runs r
  left join reconciliation_discrepancies d on d.run_id = r.id
 group by r.id, d.source, d.resource_type, d.field, d.action
union all
select null::bigint,
       null::text,
       null::text,
       null::timestamptz,
       null::timestamptz,
       (d.detected_at at time zone 'America/Sao_Paulo')::date,
       d.source,
       d.resource_type,
       d.field,
       d.action,
       count(*)::bigint
  from reconciliation_discrepancies d
 where d.run_id is null
 group by 6, 7, 8, 9, 10;
--> statement-breakpoint
comment on view finance_discrepancies_by_run is
  'Discrepancy counts per reconciliation run, source, resource type, field and action; run_id null: found outside a run (cross-channel), per day detected. See docs/finance.md.';

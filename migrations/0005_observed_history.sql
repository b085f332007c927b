DROP INDEX "status_history_inbox_event_uq";--> statement-breakpoint
ALTER TABLE "reconciliation_runs" ADD COLUMN "inserted" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "status_observed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "status_history" ADD COLUMN "entered" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "status_history" ADD COLUMN "observed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "status_observed_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "status_history_inbox_event_status_uq" ON "status_history" USING btree ("inbox_event_id","to_status") WHERE "status_history"."inbox_event_id" is not null;--> statement-breakpoint
-- Rows written before observation times existed: their best known time.
UPDATE "status_history" SET "observed_at" = "recorded_at";--> statement-breakpoint
UPDATE "sales" SET "status_observed_at" = "updated_at";--> statement-breakpoint
UPDATE "withdrawals" SET "status_observed_at" = "updated_at";--> statement-breakpoint
create or replace view finance_disputes as
select h.resource_id as sale_id,
       s.payment_method,
       h.to_status as dispute,
       h.observed_at as opened_at,
       h.entered,
       case when h.entered then next.to_status else h.from_status end as resolution,
       s.status as current_status,
       s.amount_cents,
       s.net_amount_cents,
       s.reserve_amount_cents
  from status_history h
  join sales s on s.id = h.resource_id
  left join lateral (
        select n.to_status
          from status_history n
         where n.resource_type = 'sale'
           and n.resource_id = h.resource_id
           and n.entered
           and n.id > h.id
           and n.to_status <> h.to_status
         order by n.id
         limit 1
       ) next on true
 where h.resource_type = 'sale'
   and h.to_status in ('MED', 'CHARGEBACK')
   and h.from_status is distinct from h.to_status;
--> statement-breakpoint
comment on view finance_disputes is
  'One row per dispute a sale went through (MED or CHARGEBACK, entered or observed after the mirror had moved past it): when it was observed to open, how it ended (PAGO: won or reversed; ESTORNADO: lost or confirmed; null: still open) and the sale''s current status. See docs/finance.md.';
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
        select max(h.observed_at) as since
          from status_history h
         where h.resource_type = 'sale'
           and h.resource_id = s.id
           and h.to_status = s.status
           and h.entered
           and h.from_status is distinct from h.to_status
       ) entered on true
 where s.status in ('MED', 'CHARGEBACK');

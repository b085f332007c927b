-- The books (docs/finance.md, "The journal"): an append-only journal of money movements, written
-- by the mirror writer in the transaction of the state change it follows, and the record of
-- closed days.
CREATE TABLE "ledger_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"resource_type" text NOT NULL,
	"resource_id" bigint NOT NULL,
	"account" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"effective_at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"payment_method" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"corrects_entry_id" bigint,
	"original_effective_at" timestamp with time zone,
	"original_kind" text,
	CONSTRAINT "ledger_entries_resource_type_ck" CHECK ("ledger_entries"."resource_type" in ('sale', 'withdrawal')),
	CONSTRAINT "ledger_entries_account_ck" CHECK ("ledger_entries"."account" in ('available', 'reserved')),
	CONSTRAINT "ledger_entries_amount_ck" CHECK ("ledger_entries"."amount_cents" <> 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_closes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_closes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"action" text NOT NULL,
	"day" date NOT NULL,
	"closed_through" date,
	"reason" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_closes_action_ck" CHECK ("ledger_closes"."action" in ('close', 'reopen'))
);
--> statement-breakpoint
CREATE TABLE "ledger_closed_days" (
	"day" date PRIMARY KEY NOT NULL,
	"entry_count" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"digest" text NOT NULL,
	"closed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_corrects_entry_id_ledger_entries_id_fk" FOREIGN KEY ("corrects_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_resource_idx" ON "ledger_entries" USING btree ("resource_type","resource_id","account");--> statement-breakpoint
CREATE INDEX "ledger_entries_effective_idx" ON "ledger_entries" USING btree ("effective_at");
--> statement-breakpoint
create function ledger_entries_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'ledger_entries is append-only: % refused', tg_op
    using errcode = 'insufficient_privilege';
end
$$;
--> statement-breakpoint
create trigger ledger_entries_append_only before update or delete on ledger_entries
  for each row execute function ledger_entries_append_only();
--> statement-breakpoint
create or replace view finance_journal_daily as
select (e.effective_at at time zone 'America/Sao_Paulo')::date as day,
       e.account,
       e.kind,
       e.payment_method,
       count(*)::bigint as entry_count,
       sum(e.amount_cents)::bigint as amount_cents
  from ledger_entries e
 group by 1, 2, 3, 4;
--> statement-breakpoint
comment on view finance_journal_daily is
  'The journal per day of effective_at (America/Sao_Paulo), account, kind and payment method; money in centavos, signed. A closed day never changes. See docs/finance.md.';
--> statement-breakpoint
comment on view finance_daily_totals is
  'State today, by creation day: sales per day of created_at (America/Sao_Paulo), payment method and current status; money in centavos. Rewritten by every later refund or dispute; the books are finance_journal_daily. See docs/finance.md.';
--> statement-breakpoint
-- Opening the books: every record's path through its states (the entered rows of
-- status_history, in order) booked at the times each state was observed, a payment at the
-- sale's completed_at when known; then whatever its current state implies beyond that path (a
-- denied record, a net learnt after the payment) as one last entry.
insert into ledger_entries (resource_type, resource_id, account, amount_cents, effective_at, kind, source, payment_method)
select 'sale', m.id, r.account, r.sign * m.net, 
       case when r.kind = 'payment' then coalesce(m.completed_at, m.observed_at) else m.observed_at end,
       case when r.kind in ('refund', 'dispute_lost') and m.to_status <> 'ESTORNADO' then 'correction' else r.kind end,
       'opening', m.payment_method
  from (
    select s.id, s.payment_method, s.completed_at,
           coalesce(s.net_amount_cents, s.amount_cents) as net,
           h.to_status, h.observed_at, h.id as history_id,
           coalesce(lag(h.shape) over (partition by s.id order by h.id), 'none') as from_shape,
           h.shape as to_shape
      from sales s
      join lateral (
        select sh.id, sh.to_status, sh.observed_at,
               case when sh.to_status = 'PAGO' then 'available'
                    when sh.to_status in ('MED', 'CHARGEBACK') then 'reserved'
                    else 'none' end as shape
          from status_history sh
         where sh.resource_type = 'sale' and sh.resource_id = s.id and sh.entered
      ) h on true
  ) m
  join (values
    ('none', 'available', 1, 'payment', 'available', 1),
    ('none', 'reserved', 1, 'payment', 'available', 1),
    ('none', 'reserved', 2, 'dispute_opened', 'available', -1),
    ('none', 'reserved', 3, 'dispute_opened', 'reserved', 1),
    ('available', 'reserved', 1, 'dispute_opened', 'available', -1),
    ('available', 'reserved', 2, 'dispute_opened', 'reserved', 1),
    ('reserved', 'available', 1, 'dispute_won', 'reserved', -1),
    ('reserved', 'available', 2, 'dispute_won', 'available', 1),
    ('available', 'none', 1, 'refund', 'available', -1),
    ('reserved', 'none', 1, 'dispute_lost', 'reserved', -1)
  ) as r(from_shape, to_shape, step, kind, account, sign)
    on r.from_shape = m.from_shape and r.to_shape = m.to_shape
 where m.net <> 0
 order by m.id, m.history_id, r.step;
--> statement-breakpoint
insert into ledger_entries (resource_type, resource_id, account, amount_cents, effective_at, kind, source)
select 'withdrawal', m.id, 'available',
       case when m.to_shape = 'debited' then -m.amount_cents else m.amount_cents end,
       m.observed_at,
       case when m.to_shape = 'debited' then 'withdrawal'
            when m.to_status in ('REJECTED', 'FAILED', 'CANCELLED') then 'withdrawal_returned'
            else 'correction' end,
       'opening'
  from (
    select w.id, w.amount_cents, h.to_status, h.observed_at, h.id as history_id,
           coalesce(lag(h.shape) over (partition by w.id order by h.id), 'none') as from_shape,
           h.shape as to_shape
      from withdrawals w
      join lateral (
        select sh.id, sh.to_status, sh.observed_at,
               case when sh.to_status in ('PENDING', 'PROCESSING', 'COMPLETED') then 'debited'
                    else 'none' end as shape
          from status_history sh
         where sh.resource_type = 'withdrawal' and sh.resource_id = w.id and sh.entered
      ) h on true
  ) m
 where m.from_shape <> m.to_shape and m.amount_cents <> 0
 order by m.id, m.history_id;
--> statement-breakpoint
insert into ledger_entries (resource_type, resource_id, account, amount_cents, effective_at, kind, source, payment_method)
select d.resource_type, d.id, d.account, d.implied - coalesce(b.booked, 0),
       coalesce(d.denied_at, d.status_observed_at, d.updated_at),
       case when d.denied_at is not null then 'denial'
            when d.resource_type = 'sale' then 'fee_adjustment'
            else 'correction' end,
       'opening', d.payment_method
  from (
    select 'sale' as resource_type, s.id, a.account, s.payment_method, s.denied_at,
           s.status_observed_at, s.updated_at,
           case when s.denied_at is not null then 0
                when a.account = 'available' and s.status = 'PAGO' then coalesce(s.net_amount_cents, s.amount_cents)
                when a.account = 'reserved' and s.status in ('MED', 'CHARGEBACK') then coalesce(s.net_amount_cents, s.amount_cents)
                else 0 end as implied
      from sales s cross join (values ('available'), ('reserved')) as a(account)
    union all
    select 'withdrawal', w.id, 'available', null, w.denied_at, w.status_observed_at, w.updated_at,
           case when w.denied_at is null and w.status in ('PENDING', 'PROCESSING', 'COMPLETED')
                then -w.amount_cents else 0 end
      from withdrawals w
  ) d
  left join (
    select resource_type, resource_id, account, sum(amount_cents) as booked
      from ledger_entries group by 1, 2, 3
  ) b on b.resource_type = d.resource_type and b.resource_id = d.id and b.account = d.account
 where d.implied - coalesce(b.booked, 0) <> 0
 order by d.resource_type, d.id, d.account;

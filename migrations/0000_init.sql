CREATE TABLE "inbox_dedupe_keys" (
	"channel" text NOT NULL,
	"event_key" text NOT NULL,
	"inbox_event_id" bigint NOT NULL,
	"first_received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "inbox_dedupe_keys_channel_event_key_pk" PRIMARY KEY("channel","event_key")
);
--> statement-breakpoint
CREATE TABLE "inbox_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel" text NOT NULL,
	"resource_type" text,
	"resource_id" bigint,
	"notified_status" text,
	"event_key" text NOT NULL,
	"raw_body" "bytea" NOT NULL,
	"payload" jsonb,
	"body_sha256" text NOT NULL,
	"headers" jsonb NOT NULL,
	"source_address" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivery_count" integer DEFAULT 1 NOT NULL,
	"last_delivered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"state" text NOT NULL,
	"outcome" text,
	"quarantine_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"enqueued_at" timestamp with time zone,
	"processed_at" timestamp with time zone,
	CONSTRAINT "inbox_events_channel_ck" CHECK ("inbox_events"."channel" in ('postback', 'webhook')),
	CONSTRAINT "inbox_events_state_ck" CHECK ("inbox_events"."state" in ('pending', 'processed', 'quarantined', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "sale_items" (
	"sale_id" bigint NOT NULL,
	"item_id" bigint NOT NULL,
	"title" text NOT NULL,
	"unit_price_cents" bigint NOT NULL,
	"quantity" integer NOT NULL,
	"tangible" boolean NOT NULL,
	CONSTRAINT "sale_items_sale_id_item_id_pk" PRIMARY KEY("sale_id","item_id")
);
--> statement-breakpoint
CREATE TABLE "sales" (
	"id" bigint PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"payment_method" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"net_amount_cents" bigint,
	"system_fee_cents" bigint,
	"fee_cents" bigint,
	"reserve_amount_cents" bigint,
	"installments" integer,
	"customer_name" text,
	"customer_email" text,
	"customer_document" text,
	"customer_phone" text,
	"pix_code" text,
	"boleto_code" text,
	"card_last_four" text,
	"card_brand" text,
	"external_transaction_id" text,
	"shipping" jsonb,
	"created_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_reconciled_at" timestamp with time zone,
	"next_reconcile_at" timestamp with time zone,
	CONSTRAINT "sales_amounts_non_negative" CHECK ("sales"."amount_cents" >= 0 and "sales"."fee_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "status_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" bigint NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"source" text NOT NULL,
	"inbox_event_id" bigint,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_history_resource_type_ck" CHECK ("status_history"."resource_type" in ('sale', 'withdrawal')),
	CONSTRAINT "status_history_source_ck" CHECK ("status_history"."source" in ('postback', 'webhook', 'reconcile', 'api'))
);
--> statement-breakpoint
CREATE TABLE "withdrawals" (
	"id" bigint PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"net_amount_cents" bigint,
	"fee_fixed_cents" bigint,
	"fee_variable_cents" bigint,
	"fee_total_cents" bigint,
	"pix_key" text,
	"pix_key_type" text,
	"external_id" text,
	"created_at" timestamp with time zone,
	"gateway_updated_at" timestamp with time zone,
	"processed_at" timestamp with time zone,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_reconciled_at" timestamp with time zone,
	"next_reconcile_at" timestamp with time zone,
	CONSTRAINT "withdrawals_amount_non_negative" CHECK ("withdrawals"."amount_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "sale_items" ADD CONSTRAINT "sale_items_sale_id_sales_id_fk" FOREIGN KEY ("sale_id") REFERENCES "public"."sales"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_history" ADD CONSTRAINT "status_history_inbox_event_id_inbox_events_id_fk" FOREIGN KEY ("inbox_event_id") REFERENCES "public"."inbox_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbox_events_pending_idx" ON "inbox_events" USING btree ("enqueued_at") WHERE "inbox_events"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "inbox_events_resource_idx" ON "inbox_events" USING btree ("resource_type","resource_id");--> statement-breakpoint
CREATE INDEX "inbox_events_state_received_idx" ON "inbox_events" USING btree ("state","received_at");--> statement-breakpoint
CREATE INDEX "sales_next_reconcile_at_idx" ON "sales" USING btree ("next_reconcile_at");--> statement-breakpoint
CREATE INDEX "status_history_resource_idx" ON "status_history" USING btree ("resource_type","resource_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "status_history_inbox_event_uq" ON "status_history" USING btree ("inbox_event_id") WHERE "status_history"."inbox_event_id" is not null;--> statement-breakpoint
CREATE INDEX "withdrawals_next_reconcile_at_idx" ON "withdrawals" USING btree ("next_reconcile_at");
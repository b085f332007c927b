CREATE TABLE "backfill_progress" (
	"resource_type" text NOT NULL,
	"from_id" bigint NOT NULL,
	"to_id" bigint NOT NULL,
	"next_id" bigint NOT NULL,
	"found" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "backfill_progress_resource_type_from_id_to_id_pk" PRIMARY KEY("resource_type","from_id","to_id")
);
--> statement-breakpoint
CREATE TABLE "reconciliation_discrepancies" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" bigint,
	"resource_type" text NOT NULL,
	"resource_id" bigint NOT NULL,
	"field" text NOT NULL,
	"mirror_value" text,
	"gateway_value" text,
	"action" text NOT NULL,
	"source" text NOT NULL,
	"inbox_event_id" bigint,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reconciliation_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"checked" integer DEFAULT 0 NOT NULL,
	"unchanged" integer DEFAULT 0 NOT NULL,
	"corrected" integer DEFAULT 0 NOT NULL,
	"not_found" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"error" text,
	CONSTRAINT "reconciliation_runs_status_ck" CHECK ("reconciliation_runs"."status" in ('running', 'succeeded', 'partial', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "reconcile_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "reconcile_reason" text;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "gateway_read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "reconcile_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "reconcile_reason" text;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "gateway_read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reconciliation_discrepancies" ADD CONSTRAINT "reconciliation_discrepancies_run_id_reconciliation_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."reconciliation_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reconciliation_discrepancies_run_idx" ON "reconciliation_discrepancies" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "reconciliation_discrepancies_resource_idx" ON "reconciliation_discrepancies" USING btree ("resource_type","resource_id");--> statement-breakpoint
CREATE INDEX "reconciliation_runs_started_idx" ON "reconciliation_runs" USING btree ("started_at");
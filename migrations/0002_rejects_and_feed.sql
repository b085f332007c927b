CREATE TABLE "rejected_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel" text NOT NULL,
	"reason" text NOT NULL,
	"raw_body" "bytea",
	"headers" jsonb NOT NULL,
	"token_sha256" text,
	"source_address" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"inbox_event_id" bigint
);
--> statement-breakpoint
ALTER TABLE "status_history" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "rejected_deliveries_received_idx" ON "rejected_deliveries" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "status_history_unpublished_idx" ON "status_history" USING btree ("id") WHERE "status_history"."published_at" is null;
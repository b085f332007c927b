-- What an unauthenticated request leaves behind is bounded in bytes: a rejected delivery keeps
-- its digest, size and first 1 KiB (the whole body for a small sample), and a quarantined
-- webhook past the byte budget its first 1 KiB (SECURITY.md, "Denial of service").
ALTER TABLE "inbox_events" ADD COLUMN "body_bytes" integer;--> statement-breakpoint
ALTER TABLE "inbox_events" ADD COLUMN "body_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_deliveries" ADD COLUMN "body_sha256" text;--> statement-breakpoint
ALTER TABLE "rejected_deliveries" ADD COLUMN "body_bytes" integer;--> statement-breakpoint
ALTER TABLE "rejected_deliveries" ADD COLUMN "body_truncated" boolean DEFAULT false NOT NULL;
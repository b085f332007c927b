-- Existence is a fact of its own: a record the gateway denies (confirmed by a second read) is
-- marked here and leaves every finance view and the books until an authentic observation
-- restores it (docs/reconciliation.md).
ALTER TABLE "sales" ADD COLUMN "denied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "denied_at" timestamp with time zone;
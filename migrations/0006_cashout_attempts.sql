CREATE TABLE "cashout_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"amount_cents" bigint NOT NULL,
	"pix_key" text NOT NULL,
	"pix_key_type" text,
	"outcome" text DEFAULT 'pending' NOT NULL,
	"withdrawal_id" bigint,
	"detail" text,
	"raw_answer" text,
	"finished_at" timestamp with time zone,
	CONSTRAINT "cashout_attempts_outcome" CHECK ("cashout_attempts"."outcome" in ('pending', 'succeeded', 'rejected', 'unknown', 'not_paid')),
	CONSTRAINT "cashout_attempts_amount_positive" CHECK ("cashout_attempts"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE INDEX "cashout_attempts_unresolved_idx" ON "cashout_attempts" USING btree ("requested_at") WHERE "cashout_attempts"."outcome" in ('pending', 'unknown');
ALTER TABLE "cashout_attempts" ADD COLUMN "forced" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Attempts sent before the guard existed: the oldest unresolved one holds it, the others count as forced.
UPDATE "cashout_attempts" SET "forced" = true WHERE "outcome" in ('pending', 'unknown') AND "id" > (SELECT min("id") FROM "cashout_attempts" WHERE "outcome" in ('pending', 'unknown'));--> statement-breakpoint
CREATE UNIQUE INDEX "cashout_attempts_one_unresolved" ON "cashout_attempts" USING btree ((true)) WHERE "cashout_attempts"."outcome" in ('pending', 'unknown') and not "cashout_attempts"."forced";;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "pix_expires_at" timestamp with time zone;

ALTER TABLE "status_history" DROP CONSTRAINT "status_history_inbox_event_id_inbox_events_id_fk";
--> statement-breakpoint
ALTER TABLE "status_history" ADD CONSTRAINT "status_history_inbox_event_id_inbox_events_id_fk" FOREIGN KEY ("inbox_event_id") REFERENCES "public"."inbox_events"("id") ON DELETE set null ON UPDATE no action;
CREATE TABLE "appointment_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"appointment_id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "told_date" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "appointment_links" ADD CONSTRAINT "appointment_links_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointment_links" ADD CONSTRAINT "appointment_links_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointment_links_appointment_idx" ON "appointment_links" USING btree ("appointment_id");
--> statement-breakpoint
-- hand-written: invitations sent before this migration took their SEQUENCE from the time of the
-- change (twice the seconds since 2024, plus one for a cancellation); start each appointment's
-- counter above the last one it can have been sent, so the next invitation still supersedes it.
-- A confirmed or cancelled appointment was told its current start.
UPDATE "appointments" SET
  "sequence" = greatest(0, floor(extract(epoch from ("updated_at" - timestamptz '2024-01-01 00:00:00+00'))))::int * 2 + 2,
  "told_date" = CASE WHEN "status" IN ('CONFIRMED', 'CANCELLED', 'COMPLETED') THEN "date" END
WHERE "status" IN ('CONFIRMED', 'CANCELLED', 'COMPLETED');

CREATE TABLE "booking_settings" (
	"vendor_id" text PRIMARY KEY NOT NULL,
	"opening_hours" jsonb NOT NULL,
	"closed_dates" jsonb NOT NULL,
	"instant_confirmation" boolean NOT NULL,
	"reminder_minutes_before" integer NOT NULL,
	"reschedule_cutoff_hours" integer NOT NULL,
	"types" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "booking_settings" ADD CONSTRAINT "booking_settings_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_by" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "claim_waiting_by" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "claim_waiting_until" timestamp (3) with time zone;
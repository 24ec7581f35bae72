ALTER TABLE "applications" ADD COLUMN "public" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Applications that another shop has already authorized stay open to every shop: they were
-- published in practice, and their users must not lose the way to connect new shops.
UPDATE "applications" SET "public" = true WHERE EXISTS (
  SELECT 1 FROM "oauth_grants" g WHERE g."application_id" = "applications"."id" AND g."vendor_id" <> "applications"."vendor_id"
);

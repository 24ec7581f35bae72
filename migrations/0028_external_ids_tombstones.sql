CREATE TABLE "tombstones" (
	"vendor_id" text NOT NULL,
	"resource" text NOT NULL,
	"id" text NOT NULL,
	"deleted_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "tombstones_vendor_id_resource_id_pk" PRIMARY KEY("vendor_id","resource","id")
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tombstones" ADD CONSTRAINT "tombstones_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tombstones_sync_idx" ON "tombstones" USING btree ("vendor_id","resource","deleted_at","id");--> statement-breakpoint
CREATE INDEX "tombstones_deleted_at_idx" ON "tombstones" USING btree ("deleted_at");--> statement-breakpoint
CREATE INDEX "appointments_vendor_updated_idx" ON "appointments" USING btree ("vendor_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "appointments_vendor_external_id_key" ON "appointments" USING btree ("vendor_id","external_id") WHERE "appointments"."external_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "customers_vendor_external_id_key" ON "customers" USING btree ("vendor_id","external_id") WHERE "customers"."external_id" is not null;
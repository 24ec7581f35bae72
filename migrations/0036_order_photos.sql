CREATE TABLE "blob_deletions" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_photos" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"order_id" text NOT NULL,
	"update_seq" bigint,
	"token" text NOT NULL,
	"url" text NOT NULL,
	"thumbnail_url" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_photos" ADD CONSTRAINT "order_photos_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_photos" ADD CONSTRAINT "order_photos_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_photos" ADD CONSTRAINT "order_photos_update_seq_order_updates_seq_fk" FOREIGN KEY ("update_seq") REFERENCES "public"."order_updates"("seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_photos_token_idx" ON "order_photos" USING btree ("token");--> statement-breakpoint
CREATE INDEX "order_photos_vendor_idx" ON "order_photos" USING btree ("vendor_id");--> statement-breakpoint
CREATE INDEX "order_photos_order_idx" ON "order_photos" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_photos_update_idx" ON "order_photos" USING btree ("update_seq");
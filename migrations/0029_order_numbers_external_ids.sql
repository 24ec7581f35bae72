-- Order numbers, the integrator's ids on orders, and customers' phones in E.164 (CONTRACT 12).
-- Existing orders are numbered per shop from 1001 in the order they were made (created_at, then
-- id), and each shop's counter continues after its last number. Existing phones written with a
-- country code are normalized here as +digits; national numbers wait for their customer's next
-- write (libphonenumber-js runs in the app, not in SQL), so an old national number is not matched.
ALTER TABLE "customers" ADD COLUMN "phone_e164" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "number" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "last_order_number" integer DEFAULT 1000 NOT NULL;--> statement-breakpoint
UPDATE "orders" o SET "number" = n.number FROM (
  SELECT id, 1000 + row_number() OVER (PARTITION BY vendor_id ORDER BY created_at, id) AS number FROM "orders"
) n WHERE n.id = o.id;--> statement-breakpoint
UPDATE "vendors" v SET "last_order_number" = m.last FROM (
  SELECT vendor_id, max("number") AS last FROM "orders" GROUP BY vendor_id
) m WHERE m.vendor_id = v.id;--> statement-breakpoint
UPDATE "customers" SET "phone_e164" = '+' || regexp_replace(phone, '[^0-9]', '', 'g')
WHERE phone ~ '^\s*\+' AND length(regexp_replace(phone, '[^0-9]', '', 'g')) BETWEEN 8 AND 15;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "number" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "customers_vendor_phone_idx" ON "customers" USING btree ("vendor_id","phone_e164") WHERE "customers"."phone_e164" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_vendor_number_key" ON "orders" USING btree ("vendor_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_vendor_external_id_key" ON "orders" USING btree ("vendor_id","external_id") WHERE "orders"."external_id" is not null;

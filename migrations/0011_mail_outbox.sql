CREATE TABLE "mails" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text,
	"customer_id" text,
	"inquiry_id" text,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"data" jsonb NOT NULL,
	"secret" text,
	"unsubscribe_token_hash" text,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"last_error" text,
	"sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signup_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "mail_unsubscribed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "customer_mail" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mails" ADD CONSTRAINT "mails_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mails" ADD CONSTRAINT "mails_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mails" ADD CONSTRAINT "mails_inquiry_id_inquiries_id_fk" FOREIGN KEY ("inquiry_id") REFERENCES "public"."inquiries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mails_due_idx" ON "mails" USING btree ("next_attempt_at") WHERE "mails"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "mails_vendor_created_idx" ON "mails" USING btree ("vendor_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "mails_customer_idx" ON "mails" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "mails_inquiry_idx" ON "mails" USING btree ("inquiry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mails_unsubscribe_token_key" ON "mails" USING btree ("unsubscribe_token_hash") WHERE "mails"."unsubscribe_token_hash" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "signup_requests_token_hash_key" ON "signup_requests" USING btree ("token_hash");
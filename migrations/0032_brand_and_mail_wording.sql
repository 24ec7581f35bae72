CREATE TABLE "mail_wordings" (
	"vendor_id" text NOT NULL,
	"kind" text NOT NULL,
	"language" text NOT NULL,
	"subject" text,
	"opening" text,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "mail_wordings_vendor_id_kind_language_pk" PRIMARY KEY("vendor_id","kind","language")
);
--> statement-breakpoint
ALTER TABLE "inquiries" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "brand_logo_url" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "brand_accent_color" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "mail_signature" text;--> statement-breakpoint
ALTER TABLE "mail_wordings" ADD CONSTRAINT "mail_wordings_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;
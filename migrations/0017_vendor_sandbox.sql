ALTER TABLE "vendors" ADD COLUMN "sandbox_of" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD CONSTRAINT "vendors_sandbox_of_vendors_id_fk" FOREIGN KEY ("sandbox_of") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vendors_sandbox_of_key" ON "vendors" USING btree ("sandbox_of");
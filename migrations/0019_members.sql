CREATE TABLE "member_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
-- Data migration (issue 29.1, added by hand): each shop's sign-in becomes its first owner member,
-- with the shop's id as the member's id, and its sessions and reset links become that member's.
-- A sandbox (vendors.sandbox_of) never signed in and gets no member.
INSERT INTO "members" ("id", "vendor_id", "email", "name", "password_hash", "role", "created_at", "updated_at")
  SELECT "id", "id", "email", '', "password_hash", 'owner', "created_at", "updated_at" FROM "vendors"
  WHERE "sandbox_of" IS NULL;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "member_id" text;--> statement-breakpoint
UPDATE "dashboard_sessions" SET "member_id" = "vendor_id";--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ALTER COLUMN "member_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "password_resets" ADD COLUMN "member_id" text;--> statement-breakpoint
UPDATE "password_resets" SET "member_id" = "vendor_id";--> statement-breakpoint
ALTER TABLE "password_resets" ALTER COLUMN "member_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_invited_by_members_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "member_invitations_token_hash_key" ON "member_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "member_invitations_vendor_idx" ON "member_invitations" USING btree ("vendor_id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_email_key" ON "members" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "members_vendor_idx" ON "members" USING btree ("vendor_id");--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_sessions_member_idx" ON "dashboard_sessions" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "password_resets_member_idx" ON "password_resets" USING btree ("member_id");--> statement-breakpoint
ALTER TABLE "vendors" DROP COLUMN "password_hash";
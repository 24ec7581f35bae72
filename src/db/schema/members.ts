import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * The people of a shop (CONTRACT 10, "Members"): each signs in with their own e-mail and password and has
 * their own sessions. `role` is "owner" or "staff"; what each may do is src/auth/member-policy.ts.
 * An e-mail belongs to one member of one shop (sign-in finds the member by it).
 */
export const members = pgTable(
  "members",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** The person's name as the team page and the activity log show it ("" until they give one). */
    name: text("name").notNull().default(""),
    passwordHash: text("password_hash").notNull(),
    role: text("role").$type<"owner" | "staff">().notNull(),
    /** The member's own language for the dashboard; null: the shop's (vendors.language). */
    language: text("language"),
    /**
     * Two-step sign-in: the TOTP secret, sealed (AES-256-GCM, key from SESSION_SECRET:
     * modules/members/two-step.service.ts); never shown again after setup, never in a log, URL or
     * cookie. `totpPending` is the secret being set up until its first code is confirmed.
     */
    totpSecret: text("totp_secret"),
    totpPending: text("totp_pending"),
    totpEnabledAt: ts("totp_enabled_at"),
    /** The last time step a code was accepted for: a code is never accepted twice (RFC 6238 5.2). */
    totpLastStep: integer("totp_last_step"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("members_email_key").on(sql`lower(${t.email})`),
    index("members_vendor_idx").on(t.vendorId),
  ],
);

/**
 * An owner's invitation to join the shop: a one-time link valid 7 days, mailed to
 * `email`; only the SHA-256 of its token is kept. Accepting it makes the member and deletes the row.
 */
export const memberInvitations = pgTable(
  "member_invitations",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<"owner" | "staff">().notNull(),
    tokenHash: text("token_hash").notNull(),
    /** Who sent it; null once that member is removed. */
    invitedBy: text("invited_by").references(() => members.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("member_invitations_token_hash_key").on(t.tokenHash),
    index("member_invitations_vendor_idx").on(t.vendorId),
  ],
);

/** Two-step recovery codes: shown once, kept as SHA-256, each usable once. */
export const memberRecoveryCodes = pgTable(
  "member_recovery_codes",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: createdAt(),
    usedAt: ts("used_at"),
  },
  (t) => [
    uniqueIndex("member_recovery_codes_hash_key").on(t.memberId, t.codeHash),
    index("member_recovery_codes_vendor_idx").on(t.vendorId),
  ],
);

import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * The people of a shop (issue 29.1): each signs in with their own e-mail and password and has
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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("members_email_key").on(sql`lower(${t.email})`),
    index("members_vendor_idx").on(t.vendorId),
  ],
);

/**
 * An owner's invitation to join the shop (issue 29.1): a one-time link valid 7 days, mailed to
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

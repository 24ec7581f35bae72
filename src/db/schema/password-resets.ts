import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts } from "./columns.ts";
import { members } from "./members.ts";
import { vendors } from "./vendors.ts";

/**
 * One-time password-reset links (CONTRACT 9): only the SHA-256 of the token is kept, so a leaked
 * table resets nobody's password. Single use (`usedAt`), short-lived (`expiresAt`).
 */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    /** The member whose password the link sets (a reset is per member, not per shop). */
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [
    uniqueIndex("password_resets_token_hash_key").on(t.tokenHash),
    index("password_resets_vendor_idx").on(t.vendorId),
    index("password_resets_member_idx").on(t.memberId),
  ],
);

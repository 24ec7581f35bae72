import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts } from "./columns.ts";
import { customers } from "./customers.ts";
import { inquiries } from "./inquiries.ts";
import { vendors } from "./vendors.ts";

/**
 * The mail outbox (src/mail/README.md): one row per mail, written in the transaction of its cause
 * and sent by the worker. `kind` names the template in the mail catalog and `data` is what it
 * renders, as it was at commit. `secret` is the one value a mail carries that the database
 * otherwise keeps only as a hash (a reset or confirmation token, an unsubscribe token): it is
 * cleared once the mail is sent or given up. A mail about a customer or an inquiry goes with them
 * when they are erased (the foreign keys cascade).
 */
export const mails = pgTable(
  "mails",
  {
    id: id(),
    /** The shop the mail is from or about; null for mail before there is a shop (sign-up). */
    vendorId: text("vendor_id").references(() => vendors.id, { onDelete: "cascade" }),
    customerId: text("customer_id").references(() => customers.id, { onDelete: "cascade" }),
    inquiryId: text("inquiry_id").references(() => inquiries.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    toAddress: text("to_address").notNull(),
    data: jsonb("data").notNull().$type<Record<string, unknown>>(),
    secret: text("secret"),
    /** SHA-256 of the customer mail's one-click unsubscribe token (RFC 8058). */
    unsubscribeTokenHash: text("unsubscribe_token_hash"),
    /**
     * PENDING until sent (SENT) or given up (FAILED); HELD while the shop's mail budget or its
     * unconfirmed address keeps it back (`held_reason`), due again at `next_attempt_at`.
     */
    status: text("status").notNull(),
    /** Why a HELD mail waits (or a FAILED one was dropped unsent): unconfirmed, hour or day. */
    heldReason: text("held_reason"),
    /** When the sender first took a budgeted mail: the shop's hourly and daily budgets count these. */
    queuedAt: ts("queued_at"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull(),
    lastError: text("last_error"),
    sentAt: ts("sent_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("mails_due_idx").on(t.nextAttemptAt).where(sql`${t.status} in ('PENDING', 'HELD')`),
    index("mails_vendor_queued_idx").on(t.vendorId, t.queuedAt).where(sql`${t.queuedAt} is not null`),
    index("mails_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc()),
    index("mails_customer_idx").on(t.customerId),
    index("mails_inquiry_idx").on(t.inquiryId),
    uniqueIndex("mails_unsubscribe_token_key")
      .on(t.unsubscribeTokenHash)
      .where(sql`${t.unsubscribeTokenHash} is not null`),
  ],
);

/**
 * Sign-ups waiting for their address to be confirmed (CONTRACT 10): the account is made only when
 * the mailed link comes back, and its password is chosen then. The token is kept as its SHA-256.
 */
export const signupRequests = pgTable(
  "signup_requests",
  {
    id: id(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** The shop's language chosen on the sign-up form (vendors.language once confirmed). */
    language: text("language").notNull().default("en"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [uniqueIndex("signup_requests_token_hash_key").on(t.tokenHash)],
);

import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, ts } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * Idempotency-Key records (CONTRACT 8): one per vendor, credential and key, holding the answer
 * that later requests with the key replay. Written in the transaction of the change it answers
 * (src/http/idempotency.ts), so rows are always `completed`; `in_flight` rows were left by the
 * earlier claim-then-run scheme and are ignored.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    /** The credential that sent the key ("api_key:<id>", "oauth:<grantId>"): keys never cross it. */
    credential: text("credential").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    state: text("state").notNull(), // in_flight | completed
    responseStatus: integer("response_status"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    responseBody: text("response_body"),
    createdAt: createdAt(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.vendorId, t.credential, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

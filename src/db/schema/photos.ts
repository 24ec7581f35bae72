import { bigint, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns.ts";
import { orders, orderUpdates } from "./orders.ts";
import { vendors } from "./vendors.ts";

/**
 * An order's progress photo (CONTRACT 12, Photos): the JPEG and its thumbnail live in the blob
 * store (src/storage/) under keys made from vendor_id and id; this row says whose they are, how
 * large, and which status entry shows them (none until a status update names it in photoIds).
 */
export const orderPhotos = pgTable(
  "order_photos",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    /** The status entry that shows the photo; null until a status update attaches it. */
    updateSeq: bigint("update_seq", { mode: "number" }).references(() => orderUpdates.seq, {
      onDelete: "cascade",
    }),
    /** 32 random bytes, base64url: the unguessable part of the photo's links (/photos/<token>/…). */
    token: text("token").notNull(),
    /** The links as answered when the photo was stored (PUBLIC_URL then). */
    url: text("url").notNull(),
    thumbnailUrl: text("thumbnail_url").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    /** The photo's and its thumbnail's bytes in the store: what counts against the shop's quota. */
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("order_photos_token_idx").on(t.token),
    index("order_photos_vendor_idx").on(t.vendorId),
    index("order_photos_order_idx").on(t.orderId),
    index("order_photos_update_idx").on(t.updateSeq),
  ],
);

/**
 * Blobs whose rows are gone (an erasure, a deleted order) but which the store may still hold:
 * written in the same transaction as the delete, removed once the store confirmed the blob's
 * deletion. A crash between the commit and the store's answer leaves the key here for
 * housekeeping to finish, so an erasure reaches the store's copy too.
 */
export const blobDeletions = pgTable("blob_deletions", {
  key: text("key").primaryKey(),
  createdAt: createdAt(),
});

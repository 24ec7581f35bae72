import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * A shop's own wording of a kind of customer mail in one of its languages (src/mail/wording.ts):
 * the subject and the opening paragraph, plain text with the kind's placeholders. No row: the
 * catalogue's default. A null part keeps the default for that part.
 */
export const mailWordings = pgTable(
  "mail_wordings",
  {
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    language: text("language").notNull(),
    subject: text("subject"),
    opening: text("opening"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.vendorId, t.kind, t.language] })],
);

import { date, index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, ts } from "./columns.ts";
import { vendors } from "./vendors.ts";

/** Messages sent to a vendor through the public inquiry form (CONTRACT 5); only `handledAt` ever changes. */
export const inquiries = pgTable(
  "inquiries",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    email: text("email").notNull(),
    phone: text("phone"),
    weddingDate: date("wedding_date", { mode: "string" }),
    message: text("message").notNull(),
    /** The sender's language (the form's, else the browser's): the customer it becomes gets it. */
    language: text("language"),
    createdAt: createdAt(),
    /** When the vendor marked it handled in the dashboard (or turned it into an appointment). */
    handledAt: ts("handled_at"),
  },
  (t) => [index("inquiries_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc())],
);

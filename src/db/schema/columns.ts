import { text, timestamp } from "drizzle-orm/pg-core";

/** Millisecond precision, as the API shows it, so a value read back compares equal to itself. */
export const ts = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });
export const createdAt = () => ts("created_at").notNull();
export const updatedAt = () => ts("updated_at").notNull();
export const id = () => text("id").primaryKey();

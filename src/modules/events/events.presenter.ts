import type { events } from "../../db/schema/index.ts";

export type EventRow = typeof events.$inferSelect;

/** The one place an event row becomes JSON: the payload as its webhook deliveries carry it. */
export function presentEvent(row: EventRow) {
  return {
    id: row.id,
    event: row.type,
    data: row.data,
    createdAt: row.createdAt.toISOString(),
  };
}

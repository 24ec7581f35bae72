import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import type { TestApp } from "./test-app.ts";

/** Outbox events whose payload is about resource `id`, oldest first. */
export async function eventsAbout(t: TestApp, id: string) {
  return queryRows<{ type: string; data: Record<string, unknown> }>(
    t.ctx.db,
    sql`select type, data from events where data->>'id' = ${id} order by created_at, id`,
  );
}

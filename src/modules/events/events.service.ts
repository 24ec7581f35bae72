// The events API (CONTRACT 7, the pull fallback): the vendor's events of the last 30 days, newest
// first, limited to the event types whose read scope the credential has.
import { and, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { events } from "../../db/schema/index.ts";
import { notFound } from "../../errors.ts";
import { eventCatalog, eventTypes } from "../../events/catalog.ts";
import { EVENT_RETENTION_MS } from "../../events/dispatcher.ts";
import { decodeCursor, encodeCursor } from "../../lib/cursor.ts";
import { isId } from "../../lib/ids.ts";
import type { ListEventsQuery } from "./events.schemas.ts";

type EventRow = typeof events.$inferSelect;

const present = (row: EventRow) => ({
  id: row.id,
  event: row.type,
  data: row.data,
  createdAt: row.createdAt.toISOString(),
});

function readableTypes(scopes: ReadonlySet<Scope>): string[] {
  return eventTypes.filter((t) => scopes.has(eventCatalog[t].scope));
}

export async function listEvents(
  ctx: ServiceContext,
  vendorId: string,
  scopes: ReadonlySet<Scope>,
  query: ListEventsQuery,
) {
  const limit = query.limit ?? 100;
  const types = readableTypes(scopes).filter((t) => !query.type || t === query.type);
  if (types.length === 0) return { events: [], nextCursor: null };
  const horizon = new Date(ctx.now().getTime() - EVENT_RETENTION_MS);
  const since = query.since && new Date(query.since) > horizon ? new Date(query.since) : horizon;
  const conditions = [
    eq(events.vendorId, vendorId),
    inArray(events.type, types),
    gte(events.createdAt, since),
  ];
  const cursor = decodeCursor(query.cursor);
  if (cursor) {
    const t = new Date(cursor.t);
    const older = or(lt(events.createdAt, t), and(eq(events.createdAt, t), lt(events.id, cursor.id)));
    if (older) conditions.push(older);
  }
  // Matches events_vendor_created_idx (DESC NULLS LAST) so the index is read in order.
  const rows = await ctx.db
    .select()
    .from(events)
    .where(and(...conditions))
    .orderBy(sql`${events.createdAt} desc nulls last`, sql`${events.id} desc nulls last`)
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(present),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) : null,
  };
}

export async function getEvent(
  ctx: ServiceContext,
  vendorId: string,
  scopes: ReadonlySet<Scope>,
  id: string,
) {
  if (!isId(id)) throw notFound("Event");
  const horizon = new Date(ctx.now().getTime() - EVENT_RETENTION_MS);
  const [row] = await ctx.db
    .select()
    .from(events)
    .where(and(eq(events.vendorId, vendorId), eq(events.id, id), gte(events.createdAt, horizon)));
  if (!row || !readableTypes(scopes).includes(row.type)) throw notFound("Event");
  return present(row);
}

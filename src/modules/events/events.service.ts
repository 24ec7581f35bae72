// The events API (CONTRACT 7, the pull fallback): the vendor's events of the last 30 days, newest
// first, limited to the event types whose read scope the credential has.
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { events } from "../../db/schema/index.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { notFound } from "../../errors.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import { EVENT_RETENTION_MS } from "../../outbox/event-types.ts";
import { eventCatalog, eventTypes } from "./catalog.ts";
import { presentEvent } from "./events.presenter.ts";
import type { ListEventsQuery } from "./events.schemas.ts";

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
  const asked = optionalDateTime("since", query.since);
  const since = asked && asked > horizon ? asked : horizon;
  const conditions = [
    eq(events.vendorId, vendorId),
    inArray(events.type, types),
    gte(events.createdAt, since),
  ];
  const cursor = decodeCursor(query.cursor);
  // With since: a sync pass (db/sync-horizon.ts): only events stamped at or before its horizon.
  const syncTo = query.since ? (cursor?.h ?? (await syncHorizon(ctx.db))) : undefined;
  if (syncTo) conditions.push(sql`${events.createdAt} <= ${syncTo}::timestamptz`);
  if (cursor) conditions.push(afterCursor(events.createdAt, events.id, cursor, "desc"));
  // Matches events_vendor_created_idx (DESC NULLS LAST) so the index is read in order.
  const rows = await ctx.db
    .select()
    .from(events)
    .where(and(...conditions))
    .orderBy(...keysetOrder(events.createdAt, events.id, "desc"))
    .limit(limit + 1);
  const page = toPage(rows, limit, (r) => ({ t: r.createdAt.toISOString(), id: r.id, h: syncTo }));
  return { events: page.rows.map(presentEvent), nextCursor: page.nextCursor };
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
  return presentEvent(row);
}

// The events API (CONTRACT 7, the pull fallback): the vendor's events of the last 30 days, newest
// first, limited to the event types whose read scope the credential has.
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { notFound } from "../../errors.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import { EVENT_RETENTION_MS } from "../../outbox/event-types.ts";
import { eventCatalog, eventTypes } from "./catalog.ts";
import { presentEvent } from "./events.presenter.ts";
import { findEventRow, listEventRows } from "./events.repository.ts";
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
  const cursor = decodeCursor(query.cursor);
  // With since: a sync pass (db/sync-horizon.ts): only events stamped at or before its horizon.
  const syncTo = query.since ? (cursor?.h ?? (await syncHorizon(ctx.db))) : undefined;
  const rows = await listEventRows(ctx.db, { vendorId, types, since, syncTo, cursor, limit });
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
  const row = await findEventRow(ctx.db, vendorId, id, horizon);
  if (!row || !readableTypes(scopes).includes(row.type)) throw notFound("Event");
  return presentEvent(row);
}

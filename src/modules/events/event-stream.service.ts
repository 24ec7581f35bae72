// The live event stream (CONTRACT 10): what each open stream reads. A stream is a
// cursor over the vendor's events in (createdAt, id) order, read from the events table when a NOTIFY
// says the shop has a new one (stream-wake-ups.ts), so it works the same whichever API process
// wrote an event (no process-local bus to miss one).
//
// Why it cannot skip an event: an event becomes visible when its transaction commits, possibly
// after events stamped later. A page therefore only reaches up to the sync horizon (db/sync-horizon.ts,
// the start of the oldest transaction still running), exclusive: everything stamped before it has
// committed or never will, so moving the cursor past it leaves nothing behind.
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { fieldError } from "../../errors.ts";
import { isId } from "../../lib/ids.ts";
import { EVENT_RETENTION_MS } from "../../outbox/event-types.ts";
import { eventCatalog, eventTypes, isEventType } from "./catalog.ts";
import { presentEvent } from "./events.presenter.ts";
import { findEventPosition, listStreamRows } from "./events.repository.ts";

export type StreamEvent = ReturnType<typeof presentEvent>;

/** Where a stream stands: after this stamp and id (ids break ties among one millisecond). */
export interface StreamCursor {
  at: Date;
  id: string;
}

/** Events one poll reads at most; a larger backlog takes more polls, back to back. */
export const STREAM_PAGE = 200;

/**
 * The types a stream carries: those named in `types` (comma-separated; all when absent) among the
 * ones the credential may read. An unknown name is 400 naming `types`.
 */
export function streamTypes(scopes: ReadonlySet<Scope>, types: string | undefined): string[] {
  const readable = eventTypes.filter((t) => scopes.has(eventCatalog[t].scope));
  if (types === undefined || types.trim() === "") return readable;
  const asked = types.split(",").map((t) => t.trim());
  const unknown = asked.filter((t) => !isEventType(t));
  if (unknown.length > 0) {
    throw fieldError("validation_failed", "types", `names no event: ${unknown.slice(0, 5).join(", ")}`);
  }
  return readable.filter((t) => asked.includes(t));
}

/**
 * Where a new stream starts. With Last-Event-ID: just after that event (a replay of what came
 * after it, within the events' 30 days; an id no longer kept replays all 30 days). Without: the
 * current horizon, so an event committing after the connection is never lost to it.
 */
export async function streamStart(
  ctx: ServiceContext,
  vendorId: string,
  lastEventId: string | undefined,
): Promise<StreamCursor> {
  if (lastEventId !== undefined) {
    if (!isId(lastEventId)) throw fieldError("validation_failed", "Last-Event-ID", "is not an event id");
    const row = await findEventPosition(ctx.db, vendorId, lastEventId);
    if (row) return row;
    return { at: new Date(ctx.now().getTime() - EVENT_RETENTION_MS), id: "" };
  }
  return { at: new Date(await syncHorizon(ctx.db)), id: "" };
}

/**
 * The next events after `cursor` and before `horizon` (a sync horizon taken before this read, in a
 * statement of its own), oldest first, and the cursor after them.
 */
export async function readStream(
  ctx: ServiceContext,
  vendorId: string,
  types: readonly string[],
  cursor: StreamCursor,
  horizon: string,
): Promise<{ events: StreamEvent[]; cursor: StreamCursor }> {
  if (types.length === 0) return { events: [], cursor };
  const kept = new Date(ctx.now().getTime() - EVENT_RETENTION_MS);
  const rows = await listStreamRows(ctx.db, {
    vendorId,
    types,
    kept,
    after: cursor,
    horizon,
    limit: STREAM_PAGE,
  });
  const last = rows.at(-1);
  return {
    events: rows.map(presentEvent),
    cursor: last ? { at: last.createdAt, id: last.id } : cursor,
  };
}

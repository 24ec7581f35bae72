import type { ActorKind } from "../../auth/actor.ts";
import { actorKinds } from "../../auth/actor.ts";
import type { ServiceContext } from "../../context.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId } from "../../lib/ids.ts";
import { type Page, toPage } from "../../lib/pagination.ts";
import { type ActivityKind, isActivityKind } from "./activity.kinds.ts";
import {
  type ActivityRow,
  type ActorValues,
  listActivityActors,
  listActivityRows,
} from "./activity.repository.ts";

export type { ActivityRow, ActorValues };

export const ACTIVITY_PAGE_SIZE = 50;

/** How the person filter names an actor in a URL: `api_key:<id>`, `person:<id>`, `cli`. */
export function actorFilterValue(actor: ActorValues): string {
  return actor.actorId === null ? actor.actorKind : `${actor.actorKind}:${actor.actorId}`;
}

/** The actor a filter value names; undefined for anything else (then nothing is filtered). */
export function parseActorFilter(value: string | undefined): ActorValues | undefined {
  if (!value) return undefined;
  const [kind, id, ...rest] = value.split(":");
  if (rest.length > 0 || !actorKinds.includes(kind as ActorKind)) return undefined;
  if (kind === "cli" || kind === "system")
    return id === undefined ? { actorKind: kind, actorId: null } : undefined;
  // A client_id is not a CUID2, but is as tame (letters, digits, - and _).
  if (id === undefined || !(isId(id) || /^[A-Za-z0-9_-]{1,100}$/.test(id))) return undefined;
  return { actorKind: kind as ActorKind, actorId: id };
}

export interface ActivityQuery {
  cursor?: string | undefined;
  actor?: string | undefined;
  kind?: string | undefined;
}

/** A page of the shop's activity, newest first, filtered by actor and kind of record. */
export async function listActivity(
  ctx: ServiceContext,
  vendorId: string,
  query: ActivityQuery,
  limit = ACTIVITY_PAGE_SIZE,
): Promise<Page<ActivityRow>> {
  const kind: ActivityKind | undefined = query.kind && isActivityKind(query.kind) ? query.kind : undefined;
  const rows = await listActivityRows(ctx.db, vendorId, {
    limit,
    cursor: decodeCursor(query.cursor),
    actor: parseActorFilter(query.actor),
    kind,
  });
  return toPage(rows, limit, (r) => ({ t: r.at, id: r.id }));
}

/** Everyone in the shop's log, for the person filter. */
export async function activityActors(
  ctx: ServiceContext,
  vendorId: string,
): Promise<Array<ActorValues & { actorName: string | null }>> {
  return listActivityActors(ctx.db, vendorId);
}

// The activity log's rows (db/schema/activity.ts). A change records itself in its own
// transaction, in one of two ways: `recordActivity`, one more INSERT on the transaction's
// connection, or `activityCte`, a CTE inside the very statement that makes the change (the hot
// single-statement writes: creating an order or a customer, moving an order's status), so those
// stay one round trip. Either way the actor comes from the request's context (auth/actor.ts) and
// its name is read by the INSERT itself (a key's or an application's name, the person's), so
// recording costs no extra query.
import { type SQL, sql } from "drizzle-orm";
import { type Actor, currentActor } from "../../auth/actor.ts";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { queryRows } from "../../db/query-rows.ts";
import { isoTimestamp } from "../../db/sql.ts";
import type { Cursor } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import type { ActivityAction, ActivityKind } from "./activity.kinds.ts";

/** The actor as the values a statement binds: its kind and id (null for the CLI and the service). */
export interface ActorValues {
  actorKind: Actor["kind"];
  actorId: string | null;
}

export function actorValues(actor: Actor = currentActor()): ActorValues {
  return { actorKind: actor.kind, actorId: "id" in actor ? actor.id : null };
}

/**
 * The actor's name as of now, read by the statement that records the entry: the key's name, the
 * application's, the person's (the member's name, or their e-mail until they give one).
 * An application may be another shop's (a public one), so it is found by its client_id alone.
 */
function actorNameSql(kind: SQL, actorId: SQL, vendorId: SQL): SQL {
  return sql`case ${kind}
      when 'api_key' then (select k.name from api_keys k where k.id = ${actorId} and k.vendor_id = ${vendorId})
      when 'oauth_app' then (select a.name from applications a where a.client_id = ${actorId})
      when 'person' then (select coalesce(nullif(m.name, ''), m.email) from members m where m.id = ${actorId} and m.vendor_id = ${vendorId})
    end`;
}

/** One entry as SQL values (for `activityCte`): each may read the statement's other CTEs via `from`. */
export interface ActivityRowSql {
  id: SQL;
  vendorId: SQL;
  at: SQL;
  action: ActivityAction;
  subjectId: SQL;
  /** jsonb, or null. */
  detail?: SQL;
  actorKind: SQL;
  actorId: SQL;
  /** `from …` over the statement's CTEs; the entry is written once per row it yields. */
  from?: SQL;
}

/** The CTE `act` that writes the entry in the statement that makes the change. */
export function activityCte(row: ActivityRowSql): SQL {
  return sql`act as (
      insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
      select ${row.id}::text, ${row.vendorId}::text, ${row.at}, ${row.actorKind}::text, ${row.actorId}::text,
             ${actorNameSql(sql`${row.actorKind}::text`, sql`${row.actorId}::text`, sql`${row.vendorId}::text`)},
             ${row.action}::text, ${row.subjectId}::text, ${row.detail ?? sql`null::jsonb`}
      ${row.from ?? sql``}
    )`;
}

export interface ActivityEntry {
  vendorId: string;
  action: ActivityAction;
  /** The record's id; null when there is none to name (settings) or it must not be kept (an erasure). */
  subjectId: string | null;
  at: Date;
  /** Facts about the change that name no person (never a customer's name, e-mail or phone). */
  detail?: Record<string, unknown> | null;
}

/** Records the entry on `db` (the change's transaction): one INSERT, the actor's name read by it. */
export async function recordActivity(db: Executor, entry: ActivityEntry): Promise<void> {
  await db.execute(insertActivitySql(entry));
}

function insertActivitySql(entry: ActivityEntry): SQL {
  const { actorKind, actorId } = actorValues();
  return sql`insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
        values (${newId()}, ${entry.vendorId}, ${entry.at.toISOString()}::timestamptz, ${actorKind}, ${actorId},
                ${actorNameSql(sql`${actorKind}::text`, sql`${actorId}::text`, sql`${entry.vendorId}::text`)},
                ${entry.action}, ${entry.subjectId},
                ${entry.detail ? JSON.stringify(entry.detail) : null}::jsonb)`;
}

/**
 * Records an erasure and, in the same statement, takes the erased record's id out of every
 * earlier entry: the entries stay (who did what, and when), naming no one.
 */
export async function recordErasure(
  db: Executor,
  entry: ActivityEntry & { erasedId: string },
): Promise<void> {
  await db.execute(
    sql`with forgotten as (
          update activity set subject_id = null
          where vendor_id = ${entry.vendorId} and subject_id = ${entry.erasedId}
        ),
        -- The customer's own changes (actor kind "customer") keep no trace of her either.
        unnamed as (
          update activity set actor_id = null
          where vendor_id = ${entry.vendorId} and actor_kind = 'customer' and actor_id = ${entry.erasedId}
        )
        ${insertActivitySql(entry)}`,
  );
}

export interface ActivityRow {
  id: string;
  at: string;
  actorKind: Actor["kind"];
  actorId: string | null;
  actorName: string | null;
  action: string;
  subjectId: string | null;
  detail: Record<string, unknown> | null;
}

export interface ActivityFilter {
  limit: number;
  cursor?: Cursor | undefined;
  actor?: ActorValues | undefined;
  kind?: ActivityKind | undefined;
}

/** A page of the shop's entries, newest first (one statement, the (vendor, at, id) index in order). */
export async function listActivityRows(
  db: Executor,
  vendorId: string,
  filter: ActivityFilter,
): Promise<ActivityRow[]> {
  const conditions = [sql`vendor_id = ${vendorId}`];
  if (filter.actor) {
    conditions.push(sql`actor_kind = ${filter.actor.actorKind}`);
    conditions.push(
      filter.actor.actorId === null ? sql`actor_id is null` : sql`actor_id = ${filter.actor.actorId}`,
    );
  }
  if (filter.kind) conditions.push(sql`action like ${`${filter.kind}.%`}`);
  if (filter.cursor) conditions.push(afterCursor(sql`at`, sql`id`, filter.cursor, "desc"));
  return queryRows<ActivityRow>(
    db,
    sql`select id, ${isoTimestamp(sql`at`)} as at, actor_kind as "actorKind", actor_id as "actorId",
               actor_name as "actorName", action, subject_id as "subjectId", detail
        from activity
        where ${sql.join(conditions, sql` and `)}
        order by ${sql.join(keysetOrder(sql`at`, sql`id`, "desc"), sql`, `)}
        limit ${filter.limit + 1}`,
  );
}

/** Everyone who appears in the shop's log (the person filter's choices), with their latest name. */
export async function listActivityActors(
  db: Executor,
  vendorId: string,
): Promise<Array<ActorValues & { actorName: string | null }>> {
  return queryRows(
    db,
    sql`select actor_kind as "actorKind", actor_id as "actorId",
               (array_agg(actor_name order by at desc))[1] as "actorName"
        from activity where vendor_id = ${vendorId}
        group by actor_kind, actor_id
        order by 1, 3`,
  );
}

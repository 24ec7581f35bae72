import { and, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { preparedStatement } from "../../db/prepared.ts";
import { customers } from "../../db/schema/index.ts";
import { isoTimestamp, writeStampSql } from "../../db/sql.ts";
import type { Cursor } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import { containsPattern } from "../../lib/search.ts";
import { eventCtes, eventRow, notifyWhenQueued } from "../../outbox/outbox-write.repository.ts";
import { activityCte, actorValues } from "../activity/activity.repository.ts";

/**
 * The same object as jsonb, for a customer.created payload written by the statement that inserts
 * the customer (aliased `alias`, a row of the customers table's columns). Keys and values match
 * customers.presenter.ts's presentCustomer (test/query-count/api-writes.test.ts compares
 * the two).
 */
export function customerJsonbSql(alias: string): SQL {
  const c = (column: string) => sql.raw(`${alias}.${column}`);
  return sql`jsonb_build_object('id', ${c("id")}, 'name', ${c("name")}, 'email', ${c("email")},
    'phone', ${c("phone")}, 'weddingDate', ${c("wedding_date")}, 'language', ${c("language")}, 'notes', ${c("notes")},
    'measurements', ${c("measurements")}, 'preferences', ${c("preferences")},
    'externalId', ${c("external_id")}, 'metadata', ${c("metadata")},
    'createdAt', ${isoTimestamp(c("created_at"))}, 'updatedAt', ${isoTimestamp(c("updated_at"))})`;
}

export type CustomerRow = typeof customers.$inferSelect;

/** Insert unless a customer of the vendor already has this e-mail (any case); undefined then. */
export async function insertCustomerUnlessEmailTaken(
  db: Executor,
  row: typeof customers.$inferInsert,
): Promise<CustomerRow | undefined> {
  const [inserted] = await db.insert(customers).values(row).onConflictDoNothing().returning();
  return inserted;
}

/**
 * One statement: inserts the customer unless a customer of the vendor already has this e-mail
 * (any case), and with it customer.created, fanned out, with a NOTIFY when a delivery was queued.
 * `row.createdAt` is the service's clock; the row is stamped with db/sql.ts writeStampSql of it
 * (never before the statement starts). Returns what the database decided: the stamp, and the
 * free-form objects and metadata as stored (jsonb orders their keys); undefined when the e-mail was taken
 * (nothing written then).
 */
export async function insertCustomerAnnounced(
  db: Executor,
  row: CustomerRow,
  eventId: string,
): Promise<
  Pick<CustomerRow, "measurements" | "preferences" | "metadata" | "createdAt" | "updatedAt"> | undefined
> {
  const json = (v: Record<string, unknown> | null) => (v === null ? null : JSON.stringify(v));
  const [inserted] = await insertCustomerStatement(db, {
    id: row.id,
    vendorId: row.vendorId,
    name: row.name,
    email: row.email,
    phone: row.phone,
    phoneE164: row.phoneE164,
    weddingDate: row.weddingDate,
    language: row.language,
    notes: row.notes,
    measurements: json(row.measurements),
    preferences: json(row.preferences),
    externalId: row.externalId,
    metadata: JSON.stringify(row.metadata),
    at: row.createdAt.toISOString(),
    eventId,
    activityId: newId(),
    ...actorValues(),
  });
  if (!inserted) return undefined;
  const parse = (v: string | null) => (v === null ? null : (JSON.parse(v) as Record<string, unknown>));
  const at = new Date(inserted.at);
  return {
    measurements: parse(inserted.measurements),
    preferences: parse(inserted.preferences),
    metadata: JSON.parse(inserted.metadata) as Record<string, string>,
    createdAt: at,
    updatedAt: at,
  };
}

const insertCustomerStatement = preparedStatement<{
  measurements: string | null;
  preferences: string | null;
  metadata: string;
  at: string;
}>(
  "insert_customer_announced",
  (p) => sql`with c as (
      insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, language, notes, measurements,
                             preferences, external_id, metadata, created_at, updated_at)
      select ${p.id}::text, ${p.vendorId}::text, ${p.name}::text, ${p.email}::text, ${p.phone}::text,
             ${p.phoneE164}::text, ${p.weddingDate}::date, ${p.language}::text, ${p.notes}::text, ${p.measurements}::jsonb,
             ${p.preferences}::jsonb, ${p.externalId}::text, ${p.metadata}::jsonb, t.at, t.at
      from (select ${writeStampSql(p.at)} as at) t
      on conflict do nothing
      returning *
    ), ${eventCtes(
      eventRow("customer.created", {
        id: sql`${p.eventId}`,
        vendorId: sql`c.vendor_id`,
        data: customerJsonbSql("c"),
        createdAt: sql`c.created_at`,
        from: sql`from c`,
      }),
    )}, ${activityCte({
      id: sql`${p.activityId}`,
      vendorId: sql`c.vendor_id`,
      at: sql`c.created_at`,
      action: "customer.created",
      subjectId: sql`c.id`,
      actorKind: sql`${p.actorKind}`,
      actorId: sql`${p.actorId}`,
      from: sql`from c`,
    })}
    select c.measurements::text as measurements, c.preferences::text as preferences,
           c.metadata::text as metadata,
           ${isoTimestamp(sql`c.created_at`)} as at, ${notifyWhenQueued}
    from c`,
);

export async function findCustomerByEmail(
  db: Executor,
  vendorId: string,
  email: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), sql`lower(${customers.email}) = lower(${email})`))
    .limit(1);
  return row;
}

export async function findCustomerByExternalId(
  db: Executor,
  vendorId: string,
  externalId: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.externalId, externalId)))
    .limit(1);
  return row;
}

export async function findCustomerById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)))
    .limit(1);
  return row;
}

export interface ListCustomersFilter {
  limit: number;
  cursor?: Cursor | undefined;
  updatedSince?: Date | undefined;
  /** With updatedSince: only rows stamped at or before this sync horizon (db/sync-horizon.ts). */
  horizon?: string | undefined;
  email?: string | undefined;
  externalId?: string | undefined;
  /** Order by (updatedAt, id), newest first, as a sync list with tombstones is (sync-page.ts). */
  byUpdate?: boolean | undefined;
  /** Customers whose name, e-mail or phone contains this text (case-insensitive). */
  search?: string | undefined;
}

/**
 * One page of customers, newest first by creation (spec 4.3): one statement whatever the page
 * length. Fetches `limit + 1` rows so the caller knows whether another page follows; the ORDER BY
 * matches customers_vendor_created_idx (DESC NULLS LAST) so the index is read in order.
 */
export async function listCustomers(
  db: Executor,
  vendorId: string,
  filter: ListCustomersFilter,
): Promise<CustomerRow[]> {
  const conditions = [eq(customers.vendorId, vendorId)];
  if (filter.updatedSince) conditions.push(gte(customers.updatedAt, filter.updatedSince));
  if (filter.horizon) conditions.push(sql`${customers.updatedAt} <= ${filter.horizon}::timestamptz`);
  if (filter.email) conditions.push(sql`lower(${customers.email}) = lower(${filter.email})`);
  if (filter.externalId) conditions.push(eq(customers.externalId, filter.externalId));
  if (filter.search) {
    const p = containsPattern(filter.search);
    conditions.push(
      sql`(${customers.name} ilike ${p} or ${customers.email} ilike ${p} or ${customers.phone} ilike ${p})`,
    );
  }
  const sort = filter.byUpdate ? customers.updatedAt : customers.createdAt;
  if (filter.cursor) conditions.push(afterCursor(sort, customers.id, filter.cursor, "desc"));
  return db
    .select()
    .from(customers)
    .where(and(...conditions))
    .orderBy(...keysetOrder(sort, customers.id, "desc"))
    .limit(filter.limit + 1);
}

export interface CustomerCounts {
  orders: number;
  appointments: number;
}

/** The customer with its order and appointment counts, in one statement. */
export async function findCustomerWithCounts(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<(CustomerRow & { counts: CustomerCounts }) | undefined> {
  const [row] = await db
    .select({
      customer: customers,
      // Qualified by hand: Drizzle renders ${customers.id} unqualified in a one-table select,
      // which inside the subquery would name the subquery's own id.
      orders: sql<number>`(select count(*) from orders o where o.customer_id = "customers"."id")::int`,
      appointments: sql<number>`(select count(*) from appointments a where a.customer_id = "customers"."id")::int`,
    })
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)))
    .limit(1);
  if (!row) return undefined;
  return { ...row.customer, counts: { orders: Number(row.orders), appointments: Number(row.appointments) } };
}

/** The customer, locked until the transaction ends, so concurrent updates apply one at a time. */
export async function findCustomerForUpdate(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)))
    .for("update");
  return row;
}

export async function updateCustomerRow(
  db: Executor,
  vendorId: string,
  id: string,
  changes: Partial<typeof customers.$inferInsert>,
): Promise<CustomerRow> {
  const [row] = await db
    .update(customers)
    .set(changes)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)))
    .returning();
  if (!row) throw new Error("updateCustomerRow: row vanished");
  return row;
}

/** Names of the vendor's customers with these ids, in one statement (lists showing who). */
export async function findCustomerNames(
  db: Executor,
  vendorId: string,
  ids: string[],
): Promise<Array<{ id: string; name: string }>> {
  if (ids.length === 0) return [];
  return db
    .select({ id: customers.id, name: customers.name })
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), inArray(customers.id, ids)));
}

import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { appointments, orders } from "../../db/schema/index.ts";
import type { Cursor } from "../../lib/cursor.ts";

export type AppointmentRow = typeof appointments.$inferSelect;

export interface ListAppointmentsFilter {
  limit: number;
  cursor?: Cursor | undefined;
  /** Inclusive lower bound on the start. */
  from?: Date | undefined;
  /** Inclusive upper bound on the start. */
  to?: Date | undefined;
  status?: string | undefined;
  customerId?: string | undefined;
  externalId?: string | undefined;
  updatedSince?: Date | undefined;
  /** With updatedSince: only rows stamped at or before this sync horizon (db/sync-horizon.ts). */
  horizon?: string | undefined;
  /** Order by (updatedAt, id), newest first, as a sync list with tombstones is (sync-page.ts). */
  byUpdate?: boolean | undefined;
}

/**
 * One page of appointments by start, earliest first (CONTRACT 5): one statement whatever the page
 * length, `limit + 1` rows so the caller knows whether another page follows. The ORDER BY matches
 * appointments_vendor_date_idx.
 */
export async function listAppointments(
  db: Executor,
  vendorId: string,
  filter: ListAppointmentsFilter,
): Promise<AppointmentRow[]> {
  const conditions = [eq(appointments.vendorId, vendorId)];
  if (filter.from) conditions.push(gte(appointments.date, filter.from));
  if (filter.to) conditions.push(lte(appointments.date, filter.to));
  if (filter.status) conditions.push(eq(appointments.status, filter.status));
  if (filter.customerId) conditions.push(eq(appointments.customerId, filter.customerId));
  if (filter.externalId) conditions.push(eq(appointments.externalId, filter.externalId));
  if (filter.updatedSince) conditions.push(gte(appointments.updatedAt, filter.updatedSince));
  if (filter.horizon) conditions.push(sql`${appointments.updatedAt} <= ${filter.horizon}::timestamptz`);
  const [sort, direction] = filter.byUpdate
    ? ([appointments.updatedAt, "desc"] as const)
    : ([appointments.date, "asc"] as const);
  if (filter.cursor) conditions.push(afterCursor(sort, appointments.id, filter.cursor, direction));
  return db
    .select()
    .from(appointments)
    .where(and(...conditions))
    .orderBy(...keysetOrder(sort, appointments.id, direction))
    .limit(filter.limit + 1);
}

export async function findAppointmentById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<AppointmentRow | undefined> {
  const [row] = await db
    .select()
    .from(appointments)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.id, id)))
    .limit(1);
  return row;
}

/** The appointment, locked until the transaction ends, so concurrent moves apply one at a time. */
export async function findAppointmentByExternalId(
  db: Executor,
  vendorId: string,
  externalId: string,
): Promise<AppointmentRow | undefined> {
  const [row] = await db
    .select()
    .from(appointments)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.externalId, externalId)))
    .limit(1);
  return row;
}

export async function findAppointmentForUpdate(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<AppointmentRow | undefined> {
  const [row] = await db
    .select()
    .from(appointments)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.id, id)))
    .for("update");
  return row;
}

export async function insertAppointment(
  db: Executor,
  row: typeof appointments.$inferInsert,
): Promise<AppointmentRow> {
  const [inserted] = await db.insert(appointments).values(row).returning();
  if (!inserted) throw new Error("insertAppointment returned nothing");
  return inserted;
}

export async function updateAppointmentRow(
  db: Executor,
  vendorId: string,
  id: string,
  changes: Partial<typeof appointments.$inferInsert>,
): Promise<AppointmentRow> {
  const [row] = await db
    .update(appointments)
    .set(changes)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.id, id)))
    .returning();
  if (!row) throw new Error("updateAppointmentRow: row vanished");
  return row;
}

export async function deleteAppointmentRow(db: Executor, vendorId: string, id: string): Promise<void> {
  await db.delete(appointments).where(and(eq(appointments.vendorId, vendorId), eq(appointments.id, id)));
}

/** The customer of the vendor's order `orderId`, or undefined when the vendor has no such order. */
export async function findOrderCustomerId(
  db: Executor,
  vendorId: string,
  orderId: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ customerId: orders.customerId })
    .from(orders)
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, orderId)))
    .limit(1);
  // An order whose customer was erased belongs to no customer: no appointment can link it.
  return row?.customerId ?? undefined;
}

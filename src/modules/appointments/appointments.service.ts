import type { ServiceContext } from "../../context.ts";
import type { Executor, Tx } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { fieldError, notFound } from "../../errors.ts";
import { DEFAULT_PAGE_SIZE } from "../../http/common-schemas.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { externalIdTaken } from "../../lib/external-ids.ts";
import { isId, newId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { getBookingSettings } from "../booking/settings.repository.ts";
import { findCustomerById } from "../customers/customers.repository.ts";
import { recordDeletion } from "../sync/record-deletion.repository.ts";
import {
  assertIncludeDeletedHasWindow,
  includeDeletedSince,
  pageWithTombstones,
  type Tombstone,
} from "../sync/sync-page.ts";
import { type CustomerNotice, calendarChanged, tellCustomer } from "./appointment-notices.ts";
import { type AppointmentJson, presentAppointment } from "./appointments.presenter.ts";
import {
  type AppointmentRow,
  deleteAppointmentRow,
  findAppointmentByExternalId,
  findAppointmentById,
  findAppointmentForUpdate,
  findOrderCustomerId,
  insertAppointment,
  listAppointments as listAppointmentRows,
  updateAppointmentRow,
} from "./appointments.repository.ts";
import type {
  CreateAppointmentBody,
  ListAppointmentsQuery,
  UpdateAppointmentBody,
} from "./appointments.schemas.ts";
import { parseInstant, parseRangeBound } from "./appointments.time.ts";
import {
  type AppointmentStatus,
  assertAppointmentTransition,
  assertDeletable,
} from "./appointments.workflow.ts";

/** The status moves that are announced (spec 3.1 rule 3, CONTRACT 10). */
const statusEvents = {
  CONFIRMED: "appointment.confirmed",
  CANCELLED: "appointment.cancelled",
  COMPLETED: "appointment.completed",
} as const;

/** A change of any of these is announced as appointment.updated (CONTRACT 10; the integrator's ids, CONTRACT 12). */
function detailsChanged(before: AppointmentRow, after: AppointmentRow): boolean {
  return (
    before.date.getTime() !== after.date.getTime() ||
    before.duration !== after.duration ||
    before.type !== after.type ||
    before.notes !== after.notes ||
    before.orderId !== after.orderId ||
    before.customerId !== after.customerId ||
    before.externalId !== after.externalId ||
    JSON.stringify(before.metadata) !== JSON.stringify(after.metadata)
  );
}

/**
 * The customer and order a body names must be the vendor's, and the order the customer's
 * (CONTRACT 5); otherwise 400 unknown_reference naming the field.
 */
async function assertReferences(
  db: Executor,
  vendorId: string,
  customerId: string,
  orderId: string | null,
  checkCustomer: boolean,
): Promise<void> {
  if (checkCustomer && (!isId(customerId) || !(await findCustomerById(db, vendorId, customerId)))) {
    throw fieldError("unknown_reference", "customerId", "names no customer of this vendor");
  }
  if (orderId === null) return;
  const orderCustomer = isId(orderId) ? await findOrderCustomerId(db, vendorId, orderId) : undefined;
  if (orderCustomer !== customerId) {
    throw fieldError("unknown_reference", "orderId", "names no order of this vendor for this customer");
  }
}

/**
 * 409 external_id_taken when another appointment of the shop has `externalId`. The unique index
 * is the last word under a concurrent write (withExternalIdClash turns its refusal into the same).
 */
async function assertExternalIdFree(
  db: Executor,
  vendorId: string,
  externalId: string,
  self: string | undefined,
): Promise<void> {
  const other = await findAppointmentByExternalId(db, vendorId, externalId);
  if (other && other.id !== self) throw externalIdTaken("appointment", other.id);
}

/** A unique violation of a write that set `externalId` is the clash a concurrent write made. */
async function withExternalIdClash<T>(
  ctx: ServiceContext,
  vendorId: string,
  externalId: string | null | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!externalId || !isUniqueViolation(error)) throw error;
    const other = await findAppointmentByExternalId(ctx.db, vendorId, externalId);
    throw externalIdTaken("appointment", other?.id);
  }
}

/** Spec 3.1 rule 3: the status moves that are announced, in the change's transaction. */
async function emitStatusEvent(tx: Tx, vendorId: string, row: AppointmentRow, at: Date): Promise<void> {
  const type = statusEvents[row.status as keyof typeof statusEvents];
  if (!type) return;
  await enqueueEvent(tx, { vendorId, type, data: presentAppointment(row), createdAt: at });
}

export async function createAppointment(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateAppointmentBody,
): Promise<AppointmentJson> {
  const date = parseInstant("date", input.date);
  return withExternalIdClash(ctx, vendorId, input.externalId, () =>
    ctx.db.transaction(async (tx) => {
      // Stamped inside the transaction, so no row is older than it (lossless sync, README).
      const now = ctx.now();
      await assertReferences(tx, vendorId, input.customerId, input.orderId ?? null, true);
      if (input.externalId) await assertExternalIdFree(tx, vendorId, input.externalId, undefined);
      const row = await insertAppointment(tx, {
        id: newId(),
        vendorId,
        customerId: input.customerId,
        orderId: input.orderId ?? null,
        type: input.type,
        status: "PROPOSED",
        date,
        duration: input.duration ?? 60,
        notes: input.notes ?? null,
        externalId: input.externalId ?? null,
        metadata: input.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      });
      const data = presentAppointment(row);
      await enqueueEvent(tx, { vendorId, type: "appointment.created", data, createdAt: now });
      await recordActivity(tx, { vendorId, action: "appointment.created", subjectId: row.id, at: now });
      return data;
    }),
  );
}

/** A page of appointments by start: `{ appointments, nextCursor }`. */
export async function listAppointments(ctx: ServiceContext, vendorId: string, query: ListAppointmentsQuery) {
  assertIncludeDeletedHasWindow(query);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const from = query.from === undefined ? undefined : parseRangeBound("from", query.from, "start");
  const to = query.to === undefined ? undefined : parseRangeBound("to", query.to, "end");
  // A customer id that cannot exist matches nothing; no need to ask the database.
  if (query.customerId !== undefined && !isId(query.customerId))
    return { appointments: [], nextCursor: null };
  const cursor = decodeCursor(query.cursor);
  const horizon = query.updatedSince ? (cursor?.h ?? (await syncHorizon(ctx.db))) : undefined;
  const rows = await listAppointmentRows(ctx.db, vendorId, {
    limit,
    cursor,
    horizon,
    from,
    to,
    status: query.status,
    customerId: query.customerId,
    externalId: query.externalId,
    updatedSince: optionalDateTime("updatedSince", query.updatedSince),
  });
  const page = toPage(rows, limit, (r) => ({ t: r.date.toISOString(), id: r.id, h: horizon }));
  return { appointments: page.rows.map(presentAppointment), nextCursor: page.nextCursor };
}

/**
 * The API's list: with `updatedSince` and `includeDeleted=true`, the appointments changed in the
 * window and tombstones of those deleted, by (updatedAt, id) newest first (sync-page.ts);
 * otherwise listAppointments.
 */
export async function listAppointmentsForApi(
  ctx: ServiceContext,
  vendorId: string,
  query: ListAppointmentsQuery,
) {
  if (!query.includeDeleted) return listAppointments(ctx, vendorId, query);
  const updatedSince = includeDeletedSince(query);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const from = query.from === undefined ? undefined : parseRangeBound("from", query.from, "start");
  const to = query.to === undefined ? undefined : parseRangeBound("to", query.to, "end");
  const cursor = decodeCursor(query.cursor);
  const horizon = cursor?.h ?? (await syncHorizon(ctx.db));
  const rows =
    query.customerId !== undefined && !isId(query.customerId)
      ? []
      : await listAppointmentRows(ctx.db, vendorId, {
          limit,
          cursor,
          horizon,
          from,
          to,
          status: query.status,
          customerId: query.customerId,
          externalId: query.externalId,
          updatedSince,
          byUpdate: true,
        });
  const keyed = rows.map((r) => ({ t: r.updatedAt.toISOString(), id: r.id, value: presentAppointment(r) }));
  const page = await pageWithTombstones<AppointmentJson | Tombstone>(
    ctx.db,
    vendorId,
    "appointments",
    { limit, cursor, updatedSince, horizon },
    keyed,
    (tombstone) => tombstone,
  );
  return { appointments: page.items, nextCursor: page.nextCursor };
}

export async function getAppointment(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<AppointmentJson> {
  const row = isId(id) ? await findAppointmentById(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Appointment");
  return presentAppointment(row);
}

/**
 * The appointment as retrieve answers it, as JSON text, with its row locked for the request's
 * transaction (If-Match, http/conditional.ts); undefined when there is none.
 */
export async function lockedAppointmentJson(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<string | undefined> {
  const row = isId(id) ? await findAppointmentForUpdate(ctx.db, vendorId, id) : undefined;
  return row && JSON.stringify(presentAppointment(row));
}

/**
 * PATCH and PUT alike (CONTRACT 1). A status move is checked against the spec 3.1 table and
 * announces CONFIRMED, CANCELLED and COMPLETED, a change of the details appointment.updated, in
 * the same transaction; the customer is told (appointment-notices.ts).
 */
export async function updateAppointment(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateAppointmentBody,
): Promise<AppointmentJson> {
  return (await updateAppointmentTelling(ctx, vendorId, id, input)).appointment;
}

/** updateAppointment, also saying whether the customer could be told of the change (the dashboard shows it). */
export async function updateAppointmentTelling(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateAppointmentBody,
): Promise<{ appointment: AppointmentJson; notice: CustomerNotice | undefined }> {
  if (!isId(id)) throw notFound("Appointment");
  const date = input.date === undefined ? undefined : parseInstant("date", input.date);
  return withExternalIdClash(ctx, vendorId, input.externalId, () =>
    ctx.db.transaction(async (tx) => {
      // Stamped inside the transaction, so no row is older than it (lossless sync, README).
      const now = ctx.now();
      const current = await findAppointmentForUpdate(tx, vendorId, id);
      if (!current) throw notFound("Appointment");
      const changed = await applyAppointmentChange(tx, vendorId, current, { ...input, date }, now);
      return { appointment: presentAppointment(changed.row), notice: changed.notice };
    }),
  );
}

/**
 * The change of the locked row `current` by `input`, in `tx`: the spec 3.1 check, the row, its
 * events, the activity entry (by the request's actor) and the customer's mail. Shared by the API,
 * the dashboard and the customer's own page.
 */
export async function applyAppointmentChange(
  tx: Tx,
  vendorId: string,
  current: AppointmentRow,
  input: Omit<UpdateAppointmentBody, "date"> & { date?: Date | undefined },
  now: Date,
): Promise<{ row: AppointmentRow; notice: CustomerNotice | undefined }> {
  const id = current.id;
  const from = current.status as AppointmentStatus;
  if (input.status !== undefined) assertAppointmentTransition(from, input.status);
  const customerId = input.customerId ?? current.customerId;
  const orderId = input.orderId === undefined ? current.orderId : input.orderId;
  if (input.customerId !== undefined || input.orderId !== undefined) {
    await assertReferences(tx, vendorId, customerId, orderId, input.customerId !== undefined);
  }
  const changes: Partial<AppointmentRow> = { customerId, orderId };
  if (input.type !== undefined) changes.type = input.type;
  if (input.status !== undefined) changes.status = input.status;
  if (input.date !== undefined) changes.date = input.date;
  if (input.duration !== undefined) changes.duration = input.duration;
  if (input.notes !== undefined) changes.notes = input.notes;
  if (input.externalId !== undefined) changes.externalId = input.externalId;
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  if (input.externalId && input.externalId !== current.externalId) {
    await assertExternalIdFree(tx, vendorId, input.externalId, id);
  }
  // The invitation's SEQUENCE rises with every change a calendar must learn (appointment-notices.ts).
  if (calendarChanged(current, changes)) changes.sequence = current.sequence + 1;
  // updated_at never moves backwards, even if clocks of two processes disagree.
  const at = now > current.updatedAt ? now : new Date(current.updatedAt.getTime() + 1);
  changes.updatedAt = at;
  const row = await updateAppointmentRow(tx, vendorId, id, changes);
  if (detailsChanged(current, row)) {
    await enqueueEvent(tx, {
      vendorId,
      type: "appointment.updated",
      data: presentAppointment(row),
      createdAt: at,
    });
  }
  if (row.status !== from) await emitStatusEvent(tx, vendorId, row, at);
  const notice =
    changes.sequence === undefined
      ? undefined
      : await tellCustomer(tx, {
          vendorId,
          before: current,
          row,
          at,
          reminderMinutesBefore: (await getBookingSettings(tx, vendorId)).reminderMinutesBefore,
        });
  const fields = (["customerId", "orderId", "type", "date", "duration", "notes"] as const).filter(
    (f) => input[f] !== undefined,
  );
  await recordActivity(tx, {
    vendorId,
    action: "appointment.updated",
    subjectId: id,
    at,
    detail: row.status !== from ? { fields, from, to: row.status } : { fields },
  });
  return { row, notice };
}

/** Spec 3.1 rule 2: only PROPOSED or CANCELLED appointments can be deleted. */
export async function deleteAppointment(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Appointment");
  await ctx.db.transaction(async (tx) => {
    // Stamped inside the transaction, so the tombstone is no older than it (lossless sync, README).
    const now = ctx.now();
    const current = await findAppointmentForUpdate(tx, vendorId, id);
    if (!current) throw notFound("Appointment");
    assertDeletable(current.status as AppointmentStatus);
    await deleteAppointmentRow(tx, vendorId, id);
    // A client that polls or listens learns it is gone (CONTRACT 12, Deletions).
    await recordDeletion(tx, { vendorId, resource: "appointments", id, at: now });
    await enqueueEvent(tx, { vendorId, type: "appointment.deleted", data: { id }, createdAt: now });
    await recordActivity(tx, { vendorId, action: "appointment.deleted", subjectId: id, at: now });
  });
}

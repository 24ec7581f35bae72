import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { AppError, notFound } from "../../errors.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { externalIdTaken } from "../../lib/external-ids.ts";
import { isId, newId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { assertFreeFormObject } from "../../lib/json-bounds.ts";
import { toPage } from "../../lib/pagination.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity, recordErasure } from "../activity/activity.repository.ts";
import { evaluateOrderAlerts } from "../orders/order-alerts.service.ts";
import { detachOrdersFromCustomer } from "../orders/orders.repository.ts";
import { deletePhotosOfCustomer } from "../photos/photos.repository.ts";
import { deleteRecordedBlobsLater, photoBlobKeys } from "../photos/photos.service.ts";
import { recordDeletion } from "../sync/record-deletion.repository.ts";
import {
  assertIncludeDeletedHasWindow,
  includeDeletedSince,
  pageWithTombstones,
  type Tombstone,
} from "../sync/sync-page.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";
import {
  customerEmails,
  deleteCustomerAppointments,
  deleteCustomerInquiries,
  deleteCustomerRow,
  deleteIdempotentAnswersAbout,
  eraseCustomerFromEvents,
  eraseFromAttemptLogs,
} from "./customer-erasure.repository.ts";
import { type CustomerJson, presentCustomer } from "./customers.presenter.ts";
import {
  type CustomerCounts,
  type CustomerRow,
  findCustomerByEmail,
  findCustomerByExternalId,
  findCustomerForUpdate,
  findCustomerNames,
  findCustomerWithCounts,
  insertCustomerAnnounced,
  insertCustomerUnlessEmailTaken,
  listCustomers as listCustomerRows,
  updateCustomerRow,
} from "./customers.repository.ts";
import type { CreateCustomerBody, ListCustomersQuery, UpdateCustomerBody } from "./customers.schemas.ts";

export const DEFAULT_PAGE_SIZE = 100;

export interface CustomerContact {
  name: string;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  /** `phone` in E.164 as the shop reads it (vendors/shop-phone-country.ts). */
  phoneE164?: string | null | undefined;
  weddingDate?: string | null | undefined;
  /** The customer's language (CONTRACT 12); null: the shop's. */
  language?: string | null | undefined;
}

/**
 * The vendor's customer with this e-mail (any case), or a new one made from `contact`
 * (emitting customer.created). Safe against a concurrent insert of the same e-mail: the unique
 * index decides, and the loser links to the winner's row.
 */
export async function findOrCreateCustomer(
  tx: Tx,
  vendorId: string,
  contact: CustomerContact,
  now: Date,
): Promise<CustomerRow> {
  if (contact.email) {
    const existing = await findCustomerByEmail(tx, vendorId, contact.email);
    if (existing) return existing;
  }
  const inserted = await insertCustomerUnlessEmailTaken(tx, newCustomerRow(vendorId, contact, now));
  if (!inserted) {
    // Lost a race with a concurrent insert of the same e-mail: link to the winner.
    const winner = contact.email ? await findCustomerByEmail(tx, vendorId, contact.email) : undefined;
    if (!winner) throw new Error("customer insert conflicted but no customer has the e-mail");
    return winner;
  }
  await enqueueEvent(tx, {
    vendorId,
    type: "customer.created",
    data: presentCustomer(inserted),
    createdAt: now,
  });
  return inserted;
}

/** The row a new customer made from contact details gets (an order's or an inquiry's). */
export function newCustomerRow(vendorId: string, contact: CustomerContact, now: Date): CustomerRow {
  return {
    id: newId(),
    vendorId,
    name: contact.name,
    email: contact.email ?? null,
    phone: contact.phone ?? null,
    phoneE164: contact.phoneE164 ?? null,
    weddingDate: contact.weddingDate ?? null,
    language: contact.language ?? null,
    notes: null,
    measurements: null,
    preferences: null,
    externalId: null,
    metadata: {},
    mailUnsubscribedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

function emailTaken(existingId: string | undefined): AppError {
  return new AppError("customer_email_taken", "Another customer of this vendor has this e-mail address", {
    errors: [{ field: "email", message: "is already used by another customer" }],
    ...(existingId ? { existingId } : {}),
  });
}

function assertBounds(input: UpdateCustomerBody): void {
  assertFreeFormObject("measurements", input.measurements);
  assertFreeFormObject("preferences", input.preferences);
}

/** Creates a customer (201) and emits customer.created; a taken e-mail is 409 with existingId. */
export async function createCustomer(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateCustomerBody,
): Promise<CustomerJson> {
  assertBounds(input);
  const now = ctx.now();
  const row: CustomerRow = {
    id: newId(),
    vendorId,
    name: input.name.trim(),
    email: input.email ?? null,
    phone: input.phone ?? null,
    phoneE164: await shopPhoneE164(ctx.db, vendorId, input.phone),
    weddingDate: input.weddingDate ?? null,
    language: input.language ?? null,
    notes: input.notes ?? null,
    measurements: input.measurements ?? null,
    preferences: input.preferences ?? null,
    externalId: input.externalId ?? null,
    metadata: input.metadata ?? {},
    mailUnsubscribedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // The customer and its event in one statement (no transaction round trips around it); the
  // answer shows the stamp and the objects as stored.
  const stored = await insertCustomerAnnounced(ctx.db, row, newId());
  const created = stored && presentCustomer({ ...row, ...stored });
  if (created) return created;
  // Nothing was written: a unique index refused the row, the e-mail's or the externalId's.
  const existing = input.email ? await findCustomerByEmail(ctx.db, vendorId, input.email) : undefined;
  if (existing || !input.externalId) throw emailTaken(existing?.id);
  const other = await findCustomerByExternalId(ctx.db, vendorId, input.externalId);
  throw externalIdTaken("customer", other?.id);
}

/** A page of customers, newest first: `{ customers, nextCursor }`. */
export async function listCustomers(
  ctx: ServiceContext,
  vendorId: string,
  query: ListCustomersQuery & { search?: string | undefined },
) {
  assertIncludeDeletedHasWindow(query);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const cursor = decodeCursor(query.cursor);
  const horizon = query.updatedSince ? (cursor?.h ?? (await syncHorizon(ctx.db))) : undefined;
  const rows = await listCustomerRows(ctx.db, vendorId, {
    limit,
    cursor,
    updatedSince: optionalDateTime("updatedSince", query.updatedSince),
    horizon,
    email: query.email,
    externalId: query.externalId,
    search: query.search,
  });
  const page = toPage(rows, limit, (r) => ({ t: r.createdAt.toISOString(), id: r.id, h: horizon }));
  return { customers: page.rows.map(presentCustomer), nextCursor: page.nextCursor };
}

/**
 * The API's list: with `updatedSince` and `includeDeleted=true`, the customers changed in the
 * window and tombstones of those deleted, erased or merged away, by (updatedAt, id) newest first
 * (sync-page.ts); otherwise listCustomers.
 */
export async function listCustomersForApi(ctx: ServiceContext, vendorId: string, query: ListCustomersQuery) {
  if (!query.includeDeleted) return listCustomers(ctx, vendorId, query);
  const updatedSince = includeDeletedSince(query);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const cursor = decodeCursor(query.cursor);
  const horizon = cursor?.h ?? (await syncHorizon(ctx.db));
  const rows = await listCustomerRows(ctx.db, vendorId, {
    limit,
    cursor,
    updatedSince,
    horizon,
    email: query.email,
    externalId: query.externalId,
    byUpdate: true,
  });
  const keyed = rows.map((r) => ({ t: r.updatedAt.toISOString(), id: r.id, value: presentCustomer(r) }));
  const window = { limit, cursor, updatedSince, horizon };
  const page = await pageWithTombstones<CustomerJson | Tombstone>(
    ctx.db,
    vendorId,
    "customers",
    window,
    keyed,
    (tombstone) => tombstone,
  );
  return { customers: page.items, nextCursor: page.nextCursor };
}

export async function getCustomer(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<CustomerJson & { counts: CustomerCounts }> {
  const row = isId(id) ? await findCustomerWithCounts(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Customer");
  return { ...presentCustomer(row), counts: row.counts };
}

/**
 * The customer as retrieve answers it, as JSON text, with its row locked for the request's
 * transaction (If-Match, http/conditional.ts); undefined when there is none.
 */
export async function lockedCustomerJson(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<string | undefined> {
  if (!isId(id) || !(await findCustomerForUpdate(ctx.db, vendorId, id))) return undefined;
  return JSON.stringify(await getCustomer(ctx, vendorId, id));
}

/**
 * PATCH and PUT alike (CONTRACT 1): fields left out are unchanged, null clears an optional field.
 * Answers the customer with its counts, as retrieve does.
 */
export async function updateCustomer(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateCustomerBody,
): Promise<CustomerJson & { counts: CustomerCounts }> {
  if (!isId(id)) throw notFound("Customer");
  assertBounds(input);
  try {
    await ctx.db.transaction(async (tx) => {
      // Stamped inside the transaction, so no row is older than it (lossless sync, README).
      const now = ctx.now();
      const current = await findCustomerForUpdate(tx, vendorId, id);
      if (!current) throw notFound("Customer");
      if (input.email && input.email.toLowerCase() !== current.email?.toLowerCase()) {
        const other = await findCustomerByEmail(tx, vendorId, input.email);
        if (other && other.id !== id) throw emailTaken(other.id);
      }
      if (input.externalId && input.externalId !== current.externalId) {
        const other = await findCustomerByExternalId(tx, vendorId, input.externalId);
        if (other && other.id !== id) throw externalIdTaken("customer", other.id);
      }
      const changes: Partial<CustomerRow> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.email !== undefined) changes.email = input.email;
      if (input.phone !== undefined) {
        changes.phone = input.phone;
        changes.phoneE164 = await shopPhoneE164(tx, vendorId, input.phone);
      }
      if (input.weddingDate !== undefined) changes.weddingDate = input.weddingDate;
      if (input.language !== undefined) changes.language = input.language;
      if (input.notes !== undefined) changes.notes = input.notes;
      if (input.measurements !== undefined) changes.measurements = input.measurements;
      if (input.preferences !== undefined) changes.preferences = input.preferences;
      if (input.externalId !== undefined) changes.externalId = input.externalId;
      if (input.metadata !== undefined) changes.metadata = input.metadata;
      // updated_at never moves backwards, even if clocks of two processes disagree.
      changes.updatedAt = now > current.updatedAt ? now : new Date(current.updatedAt.getTime() + 1);
      const updated = await updateCustomerRow(tx, vendorId, id, changes);
      await recordActivity(tx, {
        vendorId,
        action: "customer.updated",
        subjectId: id,
        at: changes.updatedAt,
        // The fields' names only: their values may be hers (activity.repository.ts).
        detail: { fields: Object.keys(changes).filter((f) => f !== "updatedAt") },
      });
      const data = presentCustomer(updated);
      await enqueueEvent(tx, { vendorId, type: "customer.updated", data, createdAt: changes.updatedAt });
      // A new wedding date may put her orders at risk now (CONTRACT 12): in this transaction, once.
      if (changes.weddingDate !== undefined && changes.weddingDate !== current.weddingDate)
        await evaluateOrderAlerts(tx, { vendorId, customerId: id }, now);
    });
  } catch (error) {
    // A concurrent write took the e-mail or the externalId between our check and our update:
    // the index decides.
    if (isUniqueViolation(error) && input.email) {
      const other = await findCustomerByEmail(ctx.db, vendorId, input.email);
      if (other && other.id !== id) throw emailTaken(other.id);
    }
    if (isUniqueViolation(error) && input.externalId) {
      const other = await findCustomerByExternalId(ctx.db, vendorId, input.externalId);
      throw externalIdTaken("customer", other?.id);
    }
    throw error;
  }
  return getCustomer(ctx, vendorId, id);
}

/**
 * Erasure on the customer's request (CONTRACT 5): the customer, their appointments, the inquiries
 * sent from their e-mail, every stored event payload about them and her orders' photos (rows and
 * blobs) are gone; their orders stay for the shop's books with no customer. One transaction, so
 * an erasure is never half done; the photos' blobs are deleted from the store after it commits.
 */
export async function eraseCustomer(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Customer");
  // Her orders' photos (CONTRACT 12) go from the store too, after the rows' deletion commits.
  const blobKeys = await ctx.db.transaction(async (tx) => {
    // Stamped inside the transaction, so no row is older than it (lossless sync, README).
    const now = ctx.now();
    const customer = await findCustomerForUpdate(tx, vendorId, id);
    if (!customer) throw notFound("Customer");
    const emails = await customerEmails(tx, vendorId, { id, email: customer.email });
    // What marks a copy as hers: her id (every JSON about her carries it) and her e-mails. Not
    // her name: a short one would match unrelated text.
    const values = [id, ...emails];
    const appointmentIds = await deleteCustomerAppointments(tx, vendorId, id);
    await deleteCustomerInquiries(tx, vendorId, emails);
    await deleteIdempotentAnswersAbout(tx, vendorId, values);
    await eraseFromAttemptLogs(tx, vendorId, values);
    // Her orders' photos, while the orders still name her (the blobs are recorded for deletion).
    const photoKeys = await deletePhotosOfCustomer(tx, vendorId, id, photoBlobKeys);
    // The orders change (their customer goes), so an updatedSince sync must see them again.
    await detachOrdersFromCustomer(tx, vendorId, id, now);
    await eraseCustomerFromEvents(tx, vendorId, { id, emails });
    await deleteCustomerRow(tx, vendorId, id);
    await enqueueEvent(tx, { vendorId, type: "customer.deleted", data: { id }, createdAt: now });
    // A client that syncs by polling or listens learns what went (CONTRACT 12, Deletions). The
    // appointment events carry only ids, so they hold nothing of hers.
    for (const appointmentId of appointmentIds) {
      await enqueueEvent(tx, {
        vendorId,
        type: "appointment.deleted",
        data: { id: appointmentId },
        createdAt: now,
      });
    }
    await recordDeletion(tx, { vendorId, resource: "customers", id, at: now });
    await recordDeletion(tx, { vendorId, resource: "appointments", id: appointmentIds, at: now });
    // The log keeps what was done to her, not her id (no entry names her name or e-mail).
    await recordErasure(tx, { vendorId, action: "customer.erased", subjectId: null, at: now, erasedId: id });
    return photoKeys;
  });
  await deleteRecordedBlobsLater(ctx, blobKeys);
}

/** id → name of the vendor's customers among `ids` (another vendor's ids are simply absent). */
export async function customerNames(
  ctx: ServiceContext,
  vendorId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)].filter(isId);
  const rows = await findCustomerNames(ctx.db, vendorId, wanted);
  return new Map(rows.map((r) => [r.id, r.name]));
}

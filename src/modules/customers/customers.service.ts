import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { AppError, notFound } from "../../errors.ts";
import { DEFAULT_PAGE_SIZE } from "../../http/common-schemas.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { externalIdTaken } from "../../lib/external-ids.ts";
import { isId, newId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { assertFreeFormObject } from "../../lib/json-bounds.ts";
import { toPage } from "../../lib/pagination.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import {
  assertIncludeDeletedHasWindow,
  includeDeletedSince,
  pageWithTombstones,
  type Tombstone,
} from "../sync/sync-page.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";
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
} from "./customers.repository.ts";
import type { CreateCustomerBody, ListCustomersQuery, UpdateCustomerBody } from "./customers.schemas.ts";

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

export function emailTaken(existingId: string | undefined): AppError {
  return new AppError("customer_email_taken", "Another customer of this vendor has this e-mail address", {
    errors: [{ field: "email", message: "is already used by another customer" }],
    ...(existingId ? { existingId } : {}),
  });
}

export function assertBounds(input: UpdateCustomerBody): void {
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

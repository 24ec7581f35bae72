import type { ServiceContext } from "../../context.ts";
import { AppError, notFound } from "../../errors.ts";
import { enqueueEvent } from "../../events/enqueue.ts";
import { decodeCursor, encodeCursor } from "../../lib/cursor.ts";
import { isId, newId } from "../../lib/ids.ts";
import { lockVendor } from "../vendors/vendors.repository.ts";
import {
  countInquiriesSince,
  findInquiryById,
  type InquiryRow,
  insertInquiry,
  listInquiries as listInquiryRows,
} from "./inquiries.repository.ts";
import type { CreateInquiryBody, ListInquiriesQuery } from "./inquiries.schemas.ts";

export const DEFAULT_PAGE_SIZE = 100;
/**
 * Per vendor, whatever the sender's address: a botnet rotating addresses passes the per-address
 * limit, but cannot bury one vendor's inbox (or their webhook receiver) under more than this.
 */
export const INQUIRIES_PER_VENDOR_PER_HOUR = 100;
const HOUR_MS = 3_600_000;

/** The one place an inquiry row becomes JSON (API responses and the inquiry.received payload). */
export function presentInquiry(row: InquiryRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    weddingDate: row.weddingDate,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The public inquiry form (CONTRACT 5): stores the inquiry and emits inquiry.received. */
export async function receiveInquiry(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateInquiryBody,
  limitPerHour = INQUIRIES_PER_VENDOR_PER_HOUR,
): Promise<{ id: string }> {
  if (!isId(vendorId)) throw notFound("Vendor");
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    if (!(await lockVendor(tx, vendorId))) throw notFound("Vendor");
    if ((await countInquiriesSince(tx, vendorId, new Date(now.getTime() - HOUR_MS))) >= limitPerHour) {
      throw new AppError("rate_limited", "This vendor has received too many inquiries; try again later", {
        headers: { "retry-after": "3600" },
      });
    }
    const row = await insertInquiry(tx, {
      id: newId(),
      vendorId,
      name: input.name.trim(),
      email: input.email,
      phone: input.phone ?? null,
      weddingDate: input.weddingDate ?? null,
      message: input.message,
      createdAt: now,
    });
    await enqueueEvent(tx, { vendorId, type: "inquiry.received", data: presentInquiry(row), createdAt: now });
    return { id: row.id };
  });
}

export async function listInquiries(ctx: ServiceContext, vendorId: string, query: ListInquiriesQuery) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listInquiryRows(ctx.db, vendorId, { limit, cursor: decodeCursor(query.cursor) });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) : null;
  return { inquiries: page.map(presentInquiry), nextCursor };
}

export async function getInquiry(ctx: ServiceContext, vendorId: string, id: string) {
  const row = isId(id) ? await findInquiryById(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Inquiry");
  return presentInquiry(row);
}

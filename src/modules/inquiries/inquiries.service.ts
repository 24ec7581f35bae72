import type { ServiceContext } from "../../context.ts";
import { AppError, notFound } from "../../errors.ts";
import { DEFAULT_PAGE_SIZE } from "../../http/common-schemas.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId, newId } from "../../lib/ids.ts";
import { toPage } from "../../lib/pagination.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { notificationAddress } from "../vendors/notification-email.service.ts";
import { isOnWebsite } from "../vendors/shop-settings.ts";
import { lockVendor } from "../vendors/vendors.repository.ts";
import { presentInquiry } from "./inquiries.presenter.ts";
import {
  countInquiriesSince,
  findInquiryById,
  insertInquiry,
  listInquiries as listInquiryRows,
} from "./inquiries.repository.ts";
import type { CreateInquiryBody, ListInquiriesQuery } from "./inquiries.schemas.ts";

/**
 * The flood mark per vendor. One budget shared by every sender would let anyone close a shop's
 * form for an hour (a hundred requests from four addresses did), so the mark does not refuse
 * everyone: past it, only senders that already wrote to this vendor in the hour are refused.
 * What a flood costs the vendor is then bounded by the number of distinct addresses the flooder
 * holds (one inquiry each per hour, besides the per-address limit on every public request),
 * while a genuine customer, who writes once from their own address, is never refused.
 */
export const INQUIRIES_PER_VENDOR_PER_HOUR = 100;
const HOUR_MS = 3_600_000;

/**
 * The public inquiry form (CONTRACT 5): stores the inquiry, emits inquiry.received and mails the
 * shop, all in one transaction. Returns `returnTo` when the form asked to go back to an address
 * on the shop's registered website.
 */
export async function receiveInquiry(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateInquiryBody,
  options: {
    /** Whether this sender already wrote to the vendor within the hour (unknown: assume so). */
    repeatSender?: boolean;
    /** Seconds until the sender's hour ends, for Retry-After. */
    retryAfterS?: number;
    limitPerHour?: number;
    /** A plain form post's `_return`: answered only when it is on the shop's registered website. */
    returnTo?: string | undefined;
    /** The browser's language (Accept-Language matched), when the body names none. */
    browserLanguage?: string | null;
  } = {},
): Promise<{ id: string; returnTo?: string }> {
  const limitPerHour = options.limitPerHour ?? INQUIRIES_PER_VENDOR_PER_HOUR;
  const repeatSender = options.repeatSender ?? true;
  if (!isId(vendorId)) throw notFound("Vendor");
  return ctx.db.transaction(async (tx) => {
    // Stamped inside the transaction, so no row is older than it (lossless sync, README).
    const now = ctx.now();
    const vendor = await lockVendor(tx, vendorId);
    if (!vendor) throw notFound("Vendor");
    if (
      repeatSender &&
      (await countInquiriesSince(tx, vendorId, new Date(now.getTime() - HOUR_MS))) >= limitPerHour
    ) {
      throw new AppError("rate_limited", "This vendor has received too many inquiries; try again later", {
        headers: { "retry-after": String(options.retryAfterS ?? HOUR_MS / 1000) },
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
      language: input.language ?? options.browserLanguage ?? null,
      createdAt: now,
    });
    await enqueueEvent(tx, { vendorId, type: "inquiry.received", data: presentInquiry(row), createdAt: now });
    // Every new inquiry is mailed to the shop's notification e-mail, the address its owners see
    // and confirmed (never the customer-facing contact e-mail, which nobody confirms); one sent to
    // the shop's sandbox is only recorded (the inquiry and its event), never mailed.
    if (vendor.sandboxOf === null)
      await enqueueMail(tx, {
        kind: "inquiry_received",
        to: notificationAddress(vendor),
        data: {
          shopName: vendor.name,
          inquiryId: row.id,
          name: row.name,
          email: row.email,
          phone: row.phone,
          weddingDate: row.weddingDate,
          message: row.message,
          language: vendor.language,
        },
        vendorId,
        inquiryId: row.id,
        createdAt: now,
      });
    const back = options.returnTo;
    return { id: row.id, ...(back && isOnWebsite(back, vendor.website) ? { returnTo: back } : {}) };
  });
}

export async function listInquiries(ctx: ServiceContext, vendorId: string, query: ListInquiriesQuery) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listInquiryRows(ctx.db, vendorId, { limit, cursor: decodeCursor(query.cursor) });
  const page = toPage(rows, limit, (r) => ({ t: r.createdAt.toISOString(), id: r.id }));
  return { inquiries: page.rows.map(presentInquiry), nextCursor: page.nextCursor };
}

export async function getInquiry(ctx: ServiceContext, vendorId: string, id: string) {
  const row = isId(id) ? await findInquiryById(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Inquiry");
  return presentInquiry(row);
}

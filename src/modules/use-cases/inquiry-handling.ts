// What the vendor does with an inquiry in the dashboard: see whether it was handled, mark it so,
// or turn it into a customer and a first appointment in one step. The customer and appointment
// are made by the same services as the API's (customer.created fires for a new customer), all in
// one transaction with the handled mark, so a refused appointment leaves no stray customer.
import type { ServiceContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import { decodeCursor } from "../../lib/cursor.ts";
import { isId } from "../../lib/ids.ts";
import { toPage } from "../../lib/pagination.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import type { AppointmentJson } from "../appointments/appointments.presenter.ts";
import type { CreateAppointmentBody } from "../appointments/appointments.schemas.ts";
import { createAppointment } from "../appointments/appointments.service.ts";
import { findOrCreateCustomer } from "../customers/customers.service.ts";
import { presentHandledInquiry } from "../inquiries/inquiries.presenter.ts";
import {
  findInquiryById,
  listInquiries as listInquiryRows,
  setInquiryHandled,
} from "../inquiries/inquiries.repository.ts";
import type { ListInquiriesQuery } from "../inquiries/inquiries.schemas.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";

export type { HandledInquiry } from "../inquiries/inquiries.presenter.ts";

/** A page of inquiries, newest first, each with when it was handled (null: still open). */
export async function listInquiriesWithHandling(
  ctx: ServiceContext,
  vendorId: string,
  query: ListInquiriesQuery,
) {
  const limit = query.limit ?? 25;
  const rows = await listInquiryRows(ctx.db, vendorId, { limit, cursor: decodeCursor(query.cursor) });
  const page = toPage(rows, limit, (r) => ({ t: r.createdAt.toISOString(), id: r.id }));
  return { inquiries: page.rows.map(presentHandledInquiry), nextCursor: page.nextCursor };
}

export async function getInquiryWithHandling(ctx: ServiceContext, vendorId: string, id: string) {
  const row = isId(id) ? await findInquiryById(ctx.db, vendorId, id) : undefined;
  if (!row) throw notFound("Inquiry");
  return presentHandledInquiry(row);
}

export async function markInquiryHandled(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Inquiry");
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    if (!(await setInquiryHandled(tx, vendorId, id, now))) throw notFound("Inquiry");
    await recordActivity(tx, { vendorId, action: "inquiry.handled", subjectId: id, at: now });
  });
}

/**
 * The inquiry's sender becomes a customer (or is linked to the customer with their e-mail), gets
 * the appointment described, and the inquiry is marked handled: all or nothing.
 */
export async function convertInquiry(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  appointment: Omit<CreateAppointmentBody, "customerId" | "orderId">,
): Promise<{ customerId: string; appointment: AppointmentJson }> {
  if (!isId(id)) throw notFound("Inquiry");
  return ctx.db.transaction(async (tx) => {
    // Read after BEGIN, so no row is stamped before its transaction (lossless sync, README).
    const now = ctx.now();
    const inquiry = await findInquiryById(tx, vendorId, id);
    if (!inquiry) throw notFound("Inquiry");
    const customer = await findOrCreateCustomer(
      tx,
      vendorId,
      {
        name: inquiry.name,
        email: inquiry.email,
        phone: inquiry.phone,
        phoneE164: await shopPhoneE164(tx, vendorId, inquiry.phone),
        weddingDate: inquiry.weddingDate,
        language: inquiry.language,
      },
      now,
    );
    // The appointment service runs inside this transaction: its own transaction() becomes a
    // savepoint of this one (drizzle nests them), so everything commits or rolls back together.
    const inTx: ServiceContext = { db: tx as unknown as Db, now: ctx.now };
    const created = await createAppointment(inTx, vendorId, { ...appointment, customerId: customer.id });
    await setInquiryHandled(tx, vendorId, id, now);
    await recordActivity(tx, {
      vendorId,
      action: "inquiry.converted",
      subjectId: id,
      at: now,
      detail: { appointmentId: created.id },
    });
    return { customerId: customer.id, appointment: created };
  });
}

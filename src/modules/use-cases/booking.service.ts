// Customers booking a free slot themselves (CONTRACT 12, Public booking). The rules:
// - only types the shop offers online, at a start availableSlots offers now;
// - two bookings of one shop never decide at once: the vendor's row is locked (SELECT … FOR
//   UPDATE) before the slot is re-checked and the appointment written, so across transactions and
//   processes the second sees the first's appointment and gets 409 slot_taken;
// - the customer is matched by e-mail (any case) or made (customer.created), with the language
//   given or negotiated from the browser; an existing customer is left as it is;
// - the appointment is PROPOSED, or CONFIRMED when the shop chose instant confirmation, emits
//   appointment.created, and the bride and the shop are mailed, all in the one transaction.
// The vendor API's own appointment create checks none of this: staff may overbook on purpose.
import type { ServiceContext } from "../../context.ts";
import type { AppointmentTypeName } from "../../db/schema/booking.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { isLanguage } from "../../i18n/languages.ts";
import { isId, newId } from "../../lib/ids.ts";
import { requireDateTime } from "../../lib/instants.ts";
import { localDate } from "../../lib/time-zone.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { presentAppointment } from "../appointments/appointments.presenter.ts";
import { insertAppointment } from "../appointments/appointments.repository.ts";
import { type Availability, availableSlots, defaultWindow } from "../booking/availability.ts";
import { type BookingSettings, getBookingSettings } from "../booking/settings.repository.ts";
import { findOrCreateCustomer } from "../customers/customers.service.ts";
import { notificationAddress } from "../vendors/notification-email.service.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";
import { findVendorById, lockVendor } from "../vendors/vendors.repository.ts";

export interface BookingInput {
  type: AppointmentTypeName;
  start: string;
  name: string;
  email: string;
  phone?: string | null | undefined;
  weddingDate?: string | null | undefined;
  language?: string | undefined;
  notes?: string | null | undefined;
}

export interface Booked {
  id: string;
  status: "PROPOSED" | "CONFIRMED";
  start: string;
}

function notOnline(): AppError {
  return fieldError("validation_failed", "type", "is not offered for online booking by this shop");
}

/** Free slots for the vendor API (every type) or the public (online types only). */
export async function readAvailability(
  ctx: ServiceContext,
  vendorId: string,
  query: { type: AppointmentTypeName; from?: string | undefined; to?: string | undefined },
  options: { onlineOnly: boolean },
): Promise<Availability> {
  if (!isId(vendorId)) throw notFound("Vendor");
  const settings = await getBookingSettings(ctx.db, vendorId);
  if (options.onlineOnly && !settings.types[query.type].online) throw notOnline();
  const now = ctx.now();
  const fallback = defaultWindow(settings.timeZone, now, query.from);
  return availableSlots(ctx.db, vendorId, {
    type: query.type,
    from: query.from ?? fallback.from,
    to: query.to ?? fallback.to,
    now,
    settings,
  });
}

/**
 * The shop's contact e-mail when it is an address the shop showed is its own (its confirmed
 * sign-in or notification e-mail), else null: the only Reply-To a stranger's booking may get
 * (CONTRACT 12, as src/mail/outbox.repository.ts decides for customer mail).
 */
function verifiedContact(vendor: {
  contactEmail: string | null;
  email: string;
  notificationEmail: string | null;
  emailConfirmedAt: Date | null;
}): string | null {
  const contact = vendor.contactEmail?.toLowerCase();
  if (!contact || vendor.emailConfirmedAt === null) return null;
  const own = [vendor.email, vendor.notificationEmail].map((a) => a?.toLowerCase());
  return own.includes(contact) ? vendor.contactEmail : null;
}

export async function bookSlot(
  ctx: ServiceContext,
  vendorId: string,
  input: BookingInput,
  options: { browserLanguage?: string | undefined } = {},
): Promise<Booked> {
  if (!isId(vendorId)) throw notFound("Vendor");
  const start = requireDateTime("start", input.start);
  if (input.language !== undefined && !isLanguage(input.language)) {
    throw fieldError(
      "validation_failed",
      "language",
      "must be one of our languages (en, de, fr, it, es, pt, nl, pl)",
    );
  }
  const phone = input.phone?.trim() || null;
  const phoneE164 = phone ? await shopPhoneE164(ctx.db, vendorId, phone) : null;
  return ctx.db.transaction(async (tx) => {
    // The lock that makes bookings of one shop take turns (rule 2), before anything is read.
    const vendor = await lockVendor(tx, vendorId);
    if (!vendor) throw notFound("Vendor");
    const now = ctx.now();
    const settings = await getBookingSettings(tx, vendorId);
    const offer = settings.types[input.type];
    if (!offer.online) throw notOnline();
    const day = localDate(start, settings.timeZone);
    const free = await availableSlots(tx, vendorId, { type: input.type, from: day, to: day, now, settings });
    if (!free.slots.includes(start.toISOString())) {
      throw new AppError("slot_taken", `${start.toISOString()} is not a free start time`, {
        errors: [
          { field: "start", message: "is not a free start time (taken, or outside the shop's hours)" },
        ],
        start: start.toISOString(),
      });
    }
    const customer = await findOrCreateCustomer(
      tx,
      vendorId,
      {
        name: input.name.trim(),
        email: input.email,
        phone,
        phoneE164,
        weddingDate: input.weddingDate ?? null,
        language: input.language ?? options.browserLanguage ?? vendor.language,
      },
      now,
    );
    const status = settings.instantConfirmation ? "CONFIRMED" : "PROPOSED";
    const notes = input.notes?.trim() || null;
    const row = await insertAppointment(tx, {
      id: newId(),
      vendorId,
      customerId: customer.id,
      orderId: null,
      type: input.type,
      status,
      date: start,
      duration: offer.duration,
      notes,
      externalId: null,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
    await enqueueEvent(tx, {
      vendorId,
      type: "appointment.created",
      data: presentAppointment(row),
      createdAt: now,
    });
    await recordActivity(tx, { vendorId, action: "appointment.created", subjectId: row.id, at: now });
    const data = {
      shopName: vendor.name,
      replyTo: verifiedContact(vendor),
      timeZone: settings.timeZone,
      address: settings.address,
      appointmentId: row.id,
      appointmentType: row.type,
      status,
      date: start.toISOString(),
      duration: row.duration,
      customerName: input.name.trim(),
      customerEmail: input.email,
      customerPhone: phone,
      weddingDate: input.weddingDate ?? null,
      notes,
    } as const;
    // A sandbox records the booking and its events and mails nobody (CONTRACT 11); a customer
    // who unsubscribed from the shop's mail gets none.
    if (vendor.sandboxOf === null) {
      if (customer.mailUnsubscribedAt === null && customer.email) {
        await enqueueMail(tx, {
          kind: "booking_received",
          to: customer.email,
          data: { ...data, language: customer.language ?? vendor.language },
          vendorId,
          customerId: customer.id,
          createdAt: now,
        });
      }
      await enqueueMail(tx, {
        kind: "booking_received_shop",
        to: notificationAddress(vendor),
        data: { ...data, language: vendor.language },
        vendorId,
        customerId: customer.id,
        createdAt: now,
      });
    }
    return { id: row.id, status, start: start.toISOString() };
  });
}

/** What the hosted booking page shows of a shop: its name, language and booking settings. */
export async function bookingPageShop(
  ctx: ServiceContext,
  vendorId: string,
): Promise<{ name: string; language: string; settings: BookingSettings } | undefined> {
  if (!isId(vendorId)) return undefined;
  const vendor = await findVendorById(ctx.db, vendorId);
  if (!vendor || vendor.sandboxOf !== null) return undefined;
  return {
    name: vendor.name,
    language: vendor.language,
    settings: await getBookingSettings(ctx.db, vendorId),
  };
}

// The customer's own page for an appointment, `/my/appointments/<token>` (CONTRACT 12): the link
// in each appointment mail. Its rules:
// 1. The token is 256 random bits, kept only as its SHA-256 (appointment_links); it names that
//    appointment and nothing else, and leads nowhere (404) once the appointment is deleted or
//    erased (the rows cascade), moved to another customer by a merge, or cancelled.
// 2. Until `rescheduleCutoffHours` (a booking setting, default 24) before the start, the customer
//    may move a PROPOSED or CONFIRMED appointment to another free start (`availableSlots`, the
//    appointment itself not counted) or cancel it; after that the page only shows it.
// 3. A move checks the start is free again inside its transaction, under the shop's booking lock
//    (lockVendorBookings), so two changes never take the same last place: `409 slot_taken`.
// 4. Every change is the customer's in the activity log (auth/actor.ts, kind "customer"), emits
//    the usual appointment events, tells the customer (appointment-notices.ts) and mails the shop.
import { runAsActor } from "../../auth/actor.ts";
import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { hashSecret } from "../../lib/crypto.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { availableSlots } from "../booking/availability.ts";
import { getBookingSettings } from "../booking/settings.repository.ts";
import { findVendorById } from "../vendors/vendors.repository.ts";
import {
  findLinkedAppointment,
  type LinkedAppointment,
  lockVendorBookings,
} from "./appointment-links.repository.ts";
import { applyAppointmentChange } from "./appointments.service.ts";
import { parseInstant } from "./appointments.time.ts";

export interface MyAppointment {
  id: string;
  type: string;
  status: string;
  date: Date;
  duration: number;
  shopName: string;
  shopAddress: string | null;
  timeZone: string;
  /** The customer's language, else the shop's. */
  language: string;
  /** Whether the customer may still move or cancel it (rule 2). */
  changeable: boolean;
  cutoffHours: number;
}

const TOKEN_SHAPE = /^va_[A-Za-z0-9_-]{20,100}$/;

async function linked(ctx: { db: ServiceContext["db"] }, token: string, lock = false) {
  const found = TOKEN_SHAPE.test(token)
    ? await findLinkedAppointment(ctx.db, hashSecret(token), lock)
    : undefined;
  // A cancelled appointment's link is dead like a deleted one's (rule 1).
  if (!found || found.appointment.status === "CANCELLED") throw notFound("Appointment");
  return found;
}

function view(found: LinkedAppointment, cutoffHours: number, now: Date): MyAppointment {
  const a = found.appointment;
  const open = a.status === "PROPOSED" || a.status === "CONFIRMED";
  return {
    id: a.id,
    type: a.type,
    status: a.status,
    date: a.date,
    duration: a.duration,
    shopName: found.shop.name,
    shopAddress: found.shop.address,
    timeZone: found.shop.timeZone,
    language: found.customer.language ?? found.shop.language,
    changeable: open && now.getTime() < a.date.getTime() - cutoffHours * 3_600_000,
    cutoffHours,
  };
}

/** The appointment the token leads to, or 404 (rule 1). */
export async function getMyAppointment(ctx: ServiceContext, token: string): Promise<MyAppointment> {
  const found = await linked(ctx, token);
  const settings = await getBookingSettings(ctx.db, found.appointment.vendorId);
  return view(found, settings.rescheduleCutoffHours, ctx.now());
}

/** The free starts of the appointment's type between two days of the shop's calendar, itself not counted. */
export async function freeStartsForMyAppointment(
  ctx: ServiceContext,
  token: string,
  from: string,
  to: string,
): Promise<string[]> {
  const found = await linked(ctx, token);
  const a = found.appointment;
  const result = await availableSlots(ctx.db, a.vendorId, {
    type: a.type as "CONSULTATION" | "FITTING" | "PICKUP",
    from,
    to,
    excludeAppointmentId: a.id,
    now: ctx.now(),
  });
  return result.slots;
}

async function changeByCustomer(
  ctx: ServiceContext,
  token: string,
  change: (tx: Tx, found: LinkedAppointment, now: Date) => Promise<{ date?: Date; status?: "CANCELLED" }>,
): Promise<MyAppointment> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const peek = await linked({ db: tx }, token);
    await lockVendorBookings(tx, peek.appointment.vendorId);
    const found = await linked({ db: tx }, token, true);
    const a = found.appointment;
    const settings = await getBookingSettings(tx, a.vendorId);
    if (!view(found, settings.rescheduleCutoffHours, now).changeable) {
      throw new AppError(
        "invalid_transition",
        `The appointment can no longer be changed online: less than ${settings.rescheduleCutoffHours} hours before it.`,
      );
    }
    const input = await change(tx, found, now);
    const changed = await runAsActor({ kind: "customer", id: a.customerId }, () =>
      applyAppointmentChange(tx, a.vendorId, a, input, now),
    );
    const vendor = await findVendorById(tx, a.vendorId);
    if (vendor) {
      await enqueueMail(tx, {
        kind: "appointment_changed_by_customer",
        to: vendor.notificationEmail ?? vendor.email,
        vendorId: a.vendorId,
        customerId: a.customerId,
        data: {
          shopName: vendor.name,
          language: vendor.language,
          timeZone: vendor.timeZone,
          customerName: found.customer.name,
          appointmentId: a.id,
          appointmentType: a.type,
          change: input.status === "CANCELLED" ? "cancelled" : "moved",
          date: (input.date ?? a.toldDate ?? a.date).toISOString(),
          previousDate: input.date ? (a.toldDate ?? a.date).toISOString() : null,
        },
        createdAt: now,
      });
    }
    return view({ ...found, appointment: changed.row }, settings.rescheduleCutoffHours, now);
  });
}

/** Moves the appointment to `start`, a free start of its type (rule 3), or 409 slot_taken. */
export async function moveMyAppointment(
  ctx: ServiceContext,
  token: string,
  start: string,
): Promise<MyAppointment> {
  const date = parseInstant("start", start);
  return changeByCustomer(ctx, token, async (tx, found, now) => {
    const a = found.appointment;
    if (date.getTime() === a.date.getTime())
      throw fieldError("validation_failed", "start", "is the appointment's own start");
    const day = date.toLocaleDateString("en-CA", { timeZone: found.shop.timeZone });
    const free = await availableSlots(tx, a.vendorId, {
      type: a.type as "CONSULTATION" | "FITTING" | "PICKUP",
      from: day,
      to: day,
      excludeAppointmentId: a.id,
      now,
    });
    if (!free.slots.some((s) => new Date(s).getTime() === date.getTime())) {
      throw new AppError("slot_taken", "The start time is no longer free.", {
        errors: [{ field: "start", message: "is no longer free" }],
      });
    }
    return { date };
  });
}

/** Cancels the appointment; its link dies with it (rule 1). */
export async function cancelMyAppointment(ctx: ServiceContext, token: string): Promise<MyAppointment> {
  return changeByCustomer(ctx, token, async () => ({ status: "CANCELLED" }));
}

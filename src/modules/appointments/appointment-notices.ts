// Telling the customer of a change (CONTRACT 12, "Telling the customer"), inside the change's
// transaction. The rules:
// 1. A confirmation mails a METHOD:REQUEST invitation; a move of a CONFIRMED appointment (its
//    start or length) mails the new time with an updated invitation; a cancellation mails
//    METHOD:CANCEL naming the time the customer was last told (appointments.told_date).
// 2. Every one carries the appointment's sequence as of the change (raised by the change, in
//    appointments.service.ts), so each invitation supersedes the one before.
// 3. Each REQUEST mail carries a new link to the customer's own page (/my/appointments/<token>),
//    kept only as its SHA-256 (appointment-links.repository.ts), written only when the mail is.
// 4. A CONFIRMED appointment gets a reminder `reminderMinutesBefore` its start, scheduled in the
//    mail outbox at that time with the sequence of now: confirmed or moved again, cancelled or
//    removed, it is stale and never sent (src/mail/outbox.repository.ts `staleReminder`). None
//    when the setting is 0, nor when that time has passed already (confirmed inside its window).
// 5. A mail that cannot be written (customer mail off, the sandbox, no address, unsubscribed)
//    comes back as `notTold` with the reason, for the owner to see where they made the change.
import type { Executor } from "../../db/client.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import type { MailKind } from "../../mail/catalog.ts";
import { enqueueCustomerMail } from "../../mail/enqueue.ts";
import { type CustomerMailBlocker, customerMailBlocker } from "../../mail/outbox.repository.ts";
import { insertAppointmentLink, setToldDate } from "./appointment-links.repository.ts";
import type { AppointmentRow } from "./appointments.repository.ts";

/** Prefix of a customer's appointment page token (stored only as its SHA-256). */
export const APPOINTMENT_LINK_PREFIX = "va_";

export interface CustomerNotice {
  /** Why the customer was not told of a change that would have been mailed; absent when told. */
  notTold?: CustomerMailBlocker;
  /** The shop's language, in which its owner reads why. */
  shopLanguage?: string;
}

/** Whether a change to these fields is one the customer's calendar must learn of (rule 2). */
export function calendarChanged(before: AppointmentRow, after: Partial<AppointmentRow>): boolean {
  return (
    (after.date !== undefined && after.date.getTime() !== before.date.getTime()) ||
    (after.duration !== undefined && after.duration !== before.duration) ||
    (after.type !== undefined && after.type !== before.type) ||
    (after.status !== undefined && after.status !== before.status)
  );
}

function mailDue(before: AppointmentRow | undefined, row: AppointmentRow): MailKind | undefined {
  if (row.status !== before?.status) {
    if (row.status === "CONFIRMED") return "appointment_confirmed";
    if (row.status === "CANCELLED") return "appointment_cancelled";
    return undefined;
  }
  const moved =
    before !== undefined &&
    (before.date.getTime() !== row.date.getTime() ||
      before.duration !== row.duration ||
      before.type !== row.type);
  return row.status === "CONFIRMED" && moved ? "appointment_moved" : undefined;
}

async function mailWithLink(
  tx: Executor,
  kind: MailKind,
  vendorId: string,
  row: AppointmentRow,
  extra: Record<string, unknown>,
  at: Date,
  dueAt?: Date,
): Promise<boolean> {
  const pageToken =
    kind === "appointment_cancelled" ? undefined : generateSecret(APPOINTMENT_LINK_PREFIX, 32);
  const written = await enqueueCustomerMail(tx, {
    kind,
    vendorId,
    customerId: row.customerId,
    extra,
    createdAt: at,
    pageToken,
    dueAt,
  });
  if (written && pageToken) {
    await insertAppointmentLink(tx, {
      tokenHash: hashSecret(pageToken),
      appointmentId: row.id,
      vendorId,
      customerId: row.customerId,
      at,
    });
  }
  return written;
}

/**
 * Mails the customer what the change from `before` to `row` means for them (rules 1-3) and
 * schedules the reminder (rule 4); `reminderMinutesBefore` is the shop's setting. Returns what
 * the owner should be told, or undefined when the change is none the customer is mailed about.
 */
export async function tellCustomer(
  tx: Executor,
  input: {
    vendorId: string;
    before: AppointmentRow | undefined;
    row: AppointmentRow;
    at: Date;
    reminderMinutesBefore: number;
  },
): Promise<CustomerNotice | undefined> {
  const { vendorId, before, row, at } = input;
  const kind = mailDue(before, row);
  if (!kind) return undefined;
  const told = before?.toldDate ?? null;
  const extra = {
    appointmentId: row.id,
    appointmentType: row.type,
    date: (kind === "appointment_cancelled" ? (row.toldDate ?? row.date) : row.date).toISOString(),
    duration: row.duration,
    changedAt: at.toISOString(),
    sequence: row.sequence,
    previousDate: kind === "appointment_moved" ? (told ?? before?.date ?? row.date).toISOString() : null,
  };
  const written = await mailWithLink(tx, kind, vendorId, row, extra, at);
  if (written && kind !== "appointment_cancelled") await setToldDate(tx, vendorId, row.id, row.date);
  if (row.status === "CONFIRMED" && input.reminderMinutesBefore > 0) {
    const dueAt = new Date(row.date.getTime() - input.reminderMinutesBefore * 60_000);
    if (dueAt > at) {
      await mailWithLink(
        tx,
        "appointment_reminder",
        vendorId,
        row,
        { ...extra, previousDate: null },
        at,
        dueAt,
      );
    }
  }
  if (written) return {};
  const blocked = await customerMailBlocker(tx, vendorId, row.customerId);
  return blocked ? { notTold: blocked.reason, shopLanguage: blocked.shopLanguage } : {};
}

// The mail catalog: every kind of mail the service sends, by the name its outbox row keeps, with
// the template that renders it. A new kind of mail is one template file and one line here;
// `enqueueMail` then accepts exactly that kind's data.
import type { MailTemplate } from "./template.ts";
import { passwordResetMail, signupConfirmMail, signupExistingMail } from "./templates/account.ts";
import {
  appointmentCancelledMail,
  appointmentChangedByCustomerMail,
  appointmentConfirmedMail,
  appointmentMovedMail,
  appointmentReminderMail,
} from "./templates/appointment.ts";
import { bookingReceivedMail, bookingReceivedShopMail } from "./templates/booking.ts";
import { orderStatusMail } from "./templates/customer.ts";
import { inquiryReceivedMail } from "./templates/inquiry.ts";
import { notificationEmailConfirmMail, notificationEmailMovedMail } from "./templates/notification-email.ts";
import { rentalDueBackMail } from "./templates/rentals.ts";
import { memberInvitationMail } from "./templates/team.ts";
import { webhookDisabledMail, webhookFailingMail, webhookRecoveredMail } from "./templates/webhook-health.ts";

export const mailCatalog = {
  password_reset: passwordResetMail,
  signup_confirm: signupConfirmMail,
  signup_existing: signupExistingMail,
  member_invitation: memberInvitationMail,
  inquiry_received: inquiryReceivedMail,
  notification_email_confirm: notificationEmailConfirmMail,
  notification_email_moved: notificationEmailMovedMail,
  order_status: orderStatusMail,
  appointment_confirmed: appointmentConfirmedMail,
  appointment_cancelled: appointmentCancelledMail,
  webhook_failing: webhookFailingMail,
  webhook_recovered: webhookRecoveredMail,
  webhook_disabled: webhookDisabledMail,
  booking_received: bookingReceivedMail,
  booking_received_shop: bookingReceivedShopMail,
  appointment_moved: appointmentMovedMail,
  appointment_reminder: appointmentReminderMail,
  appointment_changed_by_customer: appointmentChangedByCustomerMail,

  rental_due_back: rentalDueBackMail,
} as const;

export type MailKind = keyof typeof mailCatalog;
export type MailData<K extends MailKind> = (typeof mailCatalog)[K] extends MailTemplate<infer D> ? D : never;

export function isMailKind(kind: string): kind is MailKind {
  return Object.hasOwn(mailCatalog, kind);
}

/** The kinds a shop's mail budget counts (src/mail/budget.ts). */
export const budgetedMailKinds: readonly MailKind[] = (Object.keys(mailCatalog) as MailKind[]).filter(
  (kind) => (mailCatalog[kind] as MailTemplate<unknown>).budgeted === true,
);

// A shop's mail budget (CONTRACT 12): what keeps a shop's account from being a relay for mail to
// addresses of its choosing (phishing under a shop's name). The rules, applied by the sender when
// it claims due mail (`claimDueMails` in outbox.repository.ts), so a write never pays for them and
// never fails because of them (`mail_quota_exceeded` is never an API answer):
//
// 1. Only budgeted kinds count (catalog: customer mail and invitations). Mail to the shop's own
//    addresses (a password reset, an inquiry, "you already have an account") is never held.
// 2. A shop whose e-mail is not confirmed (`vendors.email_confirmed_at` null) sends none: held
//    as `unconfirmed`, looked at again every `UNCONFIRMED_RECHECK_MS`.
// 3. A confirmed shop sends at most `hour` budgeted mails in any hour and `day` in any day,
//    counted by when the sender first took each (`mails.queued_at`: a retry is not counted
//    again); in its first `newShopDays` days the lower `newHour` / `newDay`. The rest is held as
//    `hour` or `day`; the k-th mail past the budget is looked at again when the k-th oldest
//    counted mail leaves the window (when it could go), not at every place that frees.
// 4. A mail held longer than `heldMaxHours` since it was written is dropped unsent (FAILED, its
//    reason kept, its secret cleared).
// Held mail stays on its row (status HELD, `held_reason`): the shop's Settings list it and why,
// and /metrics counts it (`vendor_api_mail_held`). Two senders claiming one shop's mail in the
// same instant can each fill the budget once (counts are read, not locked): an overshoot of at
// most one batch per extra sender, which a budget against abuse can afford.
import type { Config } from "../config.ts";

export type HeldReason = "unconfirmed" | "hour" | "day";

export type MailBudget = Config["mailBudget"];

/** How often an unconfirmed shop's held mail is looked at again (its confirmation releases it). */
export const UNCONFIRMED_RECHECK_MS = 5 * 60_000;

/** What the shop is told about a held (or dropped) mail. */
export const heldReasonText: Record<HeldReason, string> = {
  unconfirmed: "the shop's e-mail address is not confirmed yet",
  hour: "over the shop's mail limit for an hour",
  day: "over the shop's mail limit for a day",
};

export function isHeldReason(value: string | null): value is HeldReason {
  return value !== null && Object.hasOwn(heldReasonText, value);
}

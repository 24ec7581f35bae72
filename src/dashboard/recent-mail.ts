// Settings' "Recent mail": the shop's last mails and whether each went out; mail the shop's mail
// budget holds says why and when it is looked at again, and mail dropped unsent says why
// (CONTRACT 12: held mail is shown, not refused).
import type { ServiceContext } from "../context.ts";
import type { Translator } from "../i18n/translator.ts";
import { countHeldMail, listRecentMail, type MailLogEntry } from "../mail/mail-log.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { time } from "./layout.ts";
import { richMessage } from "./rich-message.ts";

const k = (key: string) => `dashboard.recentMail.${key}`;

/** Why a held mail waits (and when it is looked at again), or why a dropped one was not sent. */
function heldNote(t: Translator, m: MailLogEntry, timeZone: string): SafeHtml | string {
  if (!m.heldReason || (m.status !== "HELD" && m.status !== "FAILED")) return "";
  const reason = t.t(k(`reason.${m.heldReason}`));
  return m.status === "HELD"
    ? html` <span class="muted held-reason">${richMessage(t, k("heldUntil"), { reason }, { time: time(m.nextAttemptAt, timeZone, t) })}</span>`
    : html` <span class="muted held-reason">${t.t(k("heldTooLong"), { reason })}</span>`;
}

/** How often a mail was tried, the last error, and for a waiting one when it is tried next. */
function attemptsNote(t: Translator, m: MailLogEntry, timeZone: string): SafeHtml | string {
  if (m.attempts === 0 || m.status === "SENT") return "";
  const attempts = t.t(k("attempts"), { count: m.attempts });
  const error = m.lastError ? `: ${m.lastError}` : "";
  const next =
    m.status === "PENDING"
      ? html`; ${richMessage(t, k("next"), {}, { time: time(m.nextAttemptAt, timeZone, t) })}`
      : "";
  return html` <span class="muted">(${attempts}${error}${next})</span>`;
}

export async function recentMail(
  ctx: ServiceContext,
  t: Translator,
  vendorId: string,
  timeZone: string,
  publicUrl: string,
): Promise<SafeHtml> {
  const [mails, held] = await Promise.all([
    listRecentMail(ctx, vendorId, publicUrl),
    countHeldMail(ctx, vendorId),
  ]);
  const heldTotal = held.reduce((sum, r) => sum + r.count, 0);
  const reasons = held
    .map((r) => t.t(k("heldBecause"), { count: r.count, reason: t.t(k(`reason.${r.reason}`)) }))
    .join("; ");
  return html`<h2>${t.t(k("title"))}</h2>
${heldTotal === 0 ? "" : html`<p class="muted" id="held-mail">${t.t(k("held"), { count: heldTotal, reasons })}</p>`}
${
  mails.length === 0
    ? html`<p class="muted">${t.t(k("none"))}</p>`
    : html`<table class="list" id="recent-mail"><thead><tr><th>${t.t(k("when"))}</th><th>${t.t(k("to"))}</th><th>${t.t(k("subject"))}</th><th>${t.t(k("status"))}</th></tr></thead><tbody>
${mails.map(
  (
    m,
  ) => html`<tr data-status="${m.status}"><td>${time(m.createdAt, timeZone, t)}</td><td>${m.to}</td><td>${m.subject}</td>
<td>${t.t(k(`state.${m.status}`))}${m.status === "SENT" ? html` ${time(m.sentAt, timeZone, t)}` : ""}${heldNote(t, m, timeZone)}${attemptsNote(t, m, timeZone)}</td></tr>`,
)}
</tbody></table>`
}`;
}

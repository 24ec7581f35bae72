// Settings' "Recent mail": the shop's last mails and whether each went out; mail the shop's mail
// budget holds says why and when it is looked at again, and mail dropped unsent says why
// (CONTRACT 12: held mail is shown, not refused).
import type { ServiceContext } from "../context.ts";
import { heldReasonText } from "../mail/budget.ts";
import { countHeldMail, listRecentMail, type MailLogEntry } from "../mail/mail-log.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { time } from "./layout.ts";

const label = { PENDING: "Waiting to send", HELD: "Held", SENT: "Sent", FAILED: "Not sent" } as const;

/** Why a held mail waits (and when it is looked at again), or why a dropped one was not sent. */
function heldNote(m: MailLogEntry, timeZone: string): SafeHtml | string {
  if (!m.heldReason || (m.status !== "HELD" && m.status !== "FAILED")) return "";
  const why = heldReasonText[m.heldReason];
  return m.status === "HELD"
    ? html` <span class="muted held-reason">(${why}; looked at again ${time(m.nextAttemptAt, timeZone)})</span>`
    : html` <span class="muted held-reason">(held too long: ${why})</span>`;
}

export async function recentMail(
  ctx: ServiceContext,
  vendorId: string,
  timeZone: string,
  publicUrl: string,
): Promise<SafeHtml> {
  const [mails, held] = await Promise.all([
    listRecentMail(ctx, vendorId, publicUrl),
    countHeldMail(ctx, vendorId),
  ]);
  const heldTotal = held.reduce((sum, r) => sum + r.count, 0);
  return html`<h2>Recent mail</h2>
${
  heldTotal === 0
    ? ""
    : html`<p class="muted" id="held-mail">${heldTotal} ${heldTotal === 1 ? "mail is" : "mails are"} held, not sent yet: ${held.map((r, i) => html`${i > 0 ? "; " : ""}${r.count} because ${heldReasonText[r.reason]}`)}. Held mail goes out when the shop's mail limit allows, or is dropped unsent after a few days.</p>`
}
${
  mails.length === 0
    ? html`<p class="muted">No mail yet.</p>`
    : html`<table class="list" id="recent-mail"><thead><tr><th>When</th><th>To</th><th>Subject</th><th>Status</th></tr></thead><tbody>
${mails.map(
  (
    m,
  ) => html`<tr data-status="${m.status}"><td>${time(m.createdAt, timeZone)}</td><td>${m.to}</td><td>${m.subject}</td>
<td>${label[m.status]}${m.status === "SENT" ? html` ${time(m.sentAt, timeZone)}` : ""}${heldNote(m, timeZone)}${m.attempts > 0 && m.status !== "SENT" ? html` <span class="muted">(${m.attempts} ${m.attempts === 1 ? "attempt" : "attempts"}${m.lastError ? html`: ${m.lastError}` : ""}${m.status === "PENDING" ? html`; next ${time(m.nextAttemptAt, timeZone)}` : ""})</span>` : ""}</td></tr>`,
)}
</tbody></table>`
}`;
}

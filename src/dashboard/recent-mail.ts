// Settings' "Recent mail": the shop's last mails and whether each went out.
import type { ServiceContext } from "../context.ts";
import { listRecentMail } from "../mail/mail-log.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { time } from "./layout.ts";

const label = { PENDING: "Waiting to send", SENT: "Sent", FAILED: "Not sent" } as const;

export async function recentMail(
  ctx: ServiceContext,
  vendorId: string,
  timeZone: string,
  publicUrl: string,
): Promise<SafeHtml> {
  const mails = await listRecentMail(ctx, vendorId, publicUrl);
  return html`<h2>Recent mail</h2>
${
  mails.length === 0
    ? html`<p class="muted">No mail yet.</p>`
    : html`<table class="list" id="recent-mail"><thead><tr><th>When</th><th>To</th><th>Subject</th><th>Status</th></tr></thead><tbody>
${mails.map(
  (
    m,
  ) => html`<tr data-status="${m.status}"><td>${time(m.createdAt, timeZone)}</td><td>${m.to}</td><td>${m.subject}</td>
<td>${label[m.status]}${m.status === "SENT" ? html` ${time(m.sentAt, timeZone)}` : ""}${m.attempts > 0 && m.status !== "SENT" ? html` <span class="muted">(${m.attempts} ${m.attempts === 1 ? "attempt" : "attempts"}${m.lastError ? html`: ${m.lastError}` : ""}${m.status === "PENDING" ? html`; next ${time(m.nextAttemptAt, timeZone)}` : ""})</span>` : ""}</td></tr>`,
)}
</tbody></table>`
}`;
}

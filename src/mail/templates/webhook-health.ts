// Mail to the shop about one of its webhook endpoints (CONTRACT 12; the rules of when are in
// src/webhook-delivery/endpoint-health-mail.ts): it started failing, it works again, or the
// service disabled it. One mail per change, never one per failed delivery. The text is the
// catalogue's (src/i18n, section deliveries.mail), in the language the row names.
import { translator } from "../../i18n/translator.ts";
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

export interface WebhookHealthMailData {
  shopName: string;
  webhookId: string;
  url: string;
  /** The reader's language (a catalogue's); English when the shop has none. */
  language: string;
  timeZone: string;
  /** failing: when the endpoint's failures began, and the last one's error. */
  since?: string | null;
  error?: string | null;
  /** disabled: why the service disabled it. */
  reason?: string | null;
}

type Change = "failing" | "recovered" | "disabled";

function webhookHealthMail(change: Change) {
  return defineMail<WebhookHealthMailData>({
    audience: "shop",
    render(data, ctx) {
      const t = translator(data.language);
      const link = `${ctx.publicUrl}/dashboard/integrations/webhooks/${encodeURIComponent(data.webhookId)}`;
      const since = data.since ? t.dateTime(new Date(data.since), data.timeZone) : "–";
      const body = t.t(`deliveries.mail.${change}.body`, {
        url: data.url,
        since,
        error: data.error ?? "–",
        reason: data.reason ?? "–",
      });
      const heading = t.t(`deliveries.mail.${change}.heading`);
      const open = t.t("deliveries.mail.open");
      return {
        subject: oneLine(t.t(`deliveries.mail.${change}.subject`, { url: data.url })),
        text: `${heading}\n\n${body}\n\n${open}:\n${link}\n`,
        html: mailFrame({ heading, body: html`<p>${body}</p>\n${mailLink(link, open)}` }),
      };
    },
  });
}

export const webhookFailingMail = webhookHealthMail("failing");
export const webhookRecoveredMail = webhookHealthMail("recovered");
export const webhookDisabledMail = webhookHealthMail("disabled");

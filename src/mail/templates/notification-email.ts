// Mail about where the shop's own mail goes (CONTRACT 12): the link that confirms a new address
// (the row's secret: one day, one use; the setting changes only when it is followed), and the
// note to a remaining owner that the shop's mail now comes to them because the member it went to
// was removed or is no longer an owner. In the shop's language (rows written before read English).
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { linkOrGone, mailReader, productOf } from "./account.ts";
import { mailFrame, mailLink } from "./frame.ts";

export const notificationEmailConfirmMail = defineMail<{
  shopName: string;
  requesterName: string;
  language?: string | null;
}>({
  audience: "account",
  render(data, ctx) {
    const t = mailReader(data.language);
    const link = linkOrGone(t, ctx, "/notification-email/confirm?token=");
    const v = { shop: data.shopName, requester: data.requesterName, product: productOf(ctx) };
    return {
      subject: oneLine(t.t("shopMail.notifyConfirm.subject", v)),
      text: `${t.t("shopMail.notifyConfirm.asked", v)}

${t.t("shopMail.notifyConfirm.open")}
${link}

${t.t("shopMail.notifyConfirm.until")}
`,
      html: mailFrame({
        heading: t.t("shopMail.notifyConfirm.heading", v),
        body: html`<p>${t.t("shopMail.notifyConfirm.asked", v)}</p>
<p>${t.t("shopMail.notifyConfirm.open")}</p>
${mailLink(link, t.t("shopMail.notifyConfirm.button"))}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>${t.t("shopMail.notifyConfirm.until")}</p>`,
        lang: t.locale,
      }),
    };
  },
});

export const notificationEmailMovedMail = defineMail<{
  shopName: string;
  reason: "removed" | "demoted";
  language?: string | null;
}>({
  audience: "shop",
  render(data, ctx) {
    const t = mailReader(data.language);
    const settings = `${ctx.publicUrl}/dashboard/settings`;
    const v = { shop: data.shopName, product: productOf(ctx), reason: data.reason };
    return {
      subject: oneLine(t.t("shopMail.notifyMoved.subject", v)),
      text: `${t.t("shopMail.notifyMoved.moved", v)}

${t.t("shopMail.notifyMoved.change")}
${settings}
`,
      html: mailFrame({
        heading: t.t("shopMail.notifyMoved.heading"),
        body: html`<p>${t.t("shopMail.notifyMoved.moved", v)}</p>
<p>${t.t("shopMail.notifyMoved.change")}</p>
${mailLink(settings, t.t("shopMail.notifyMoved.button"))}`,
        lang: t.locale,
      }),
    };
  },
});

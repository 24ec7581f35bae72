// Mail to a person an owner invited to the shop's dashboard (CONTRACT 10, "Members"). The link's token is the
// row's secret: one use, seven days; the invitee chooses their name and password on its page. In
// the shop's language (the invitee has none yet; rows written before read English).
import { html } from "../../lib/html.ts";
import { defineMail } from "../template.ts";
import { linkOrGone, mailReader, productOf } from "./account.ts";
import { mailFrame, mailLink } from "./frame.ts";

export const memberInvitationMail = defineMail<{
  shopName: string;
  inviterName: string;
  role: string;
  language?: string | null;
}>({
  audience: "account",
  budgeted: true,
  render(data, ctx) {
    const t = mailReader(data.language);
    const link = linkOrGone(t, ctx, "/invitation?token=");
    const v = {
      inviter: data.inviterName,
      shop: data.shopName,
      product: productOf(ctx),
      role: data.role === "owner" ? "owner" : "staff",
    };
    return {
      subject: t.t("shopMail.invitation.subject", v),
      text: `${t.t("shopMail.invitation.invited", v)}

${t.t("shopMail.invitation.open")}
${link}

${t.t("shopMail.invitation.notYou")}
`,
      html: mailFrame({
        heading: t.t("shopMail.invitation.heading", v),
        body: html`<p>${t.t("shopMail.invitation.invited", v)}</p>
<p>${t.t("shopMail.invitation.open")}</p>
${mailLink(link, t.t("shopMail.invitation.button"))}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>${t.t("shopMail.invitation.notYou")}</p>`,
        lang: t.locale,
      }),
    };
  },
});

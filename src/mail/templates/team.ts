// Mail to a person an owner invited to the shop's dashboard (CONTRACT 10, "Members"). The link's token is the
// row's secret: one use, seven days; the invitee chooses their name and password on its page.
import { html } from "../../lib/html.ts";
import { defineMail } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

export const memberInvitationMail = defineMail<{ shopName: string; inviterName: string; role: string }>({
  audience: "account",
  budgeted: true,
  render(data, ctx) {
    const link =
      ctx.secret === null
        ? "(the link is no longer stored)"
        : `${ctx.publicUrl}/invitation?token=${encodeURIComponent(ctx.secret)}`;
    const role = data.role === "owner" ? "an owner" : "a member of staff";
    return {
      subject: `${data.inviterName} invited you to ${data.shopName} on vendor-api`,
      text: `${data.inviterName} invited you to join ${data.shopName}'s dashboard on vendor-api as ${role}.

To accept, open this link within seven days (it works once) and choose your name and password:
${link}

If you do not know the shop, ignore this mail: no account is made.
`,
      html: mailFrame({
        heading: `Join ${data.shopName}`,
        body: html`<p>${data.inviterName} invited you to join ${data.shopName}'s dashboard on vendor-api as ${role}.</p>
<p>To accept, open this link within seven days (it works once) and choose your name and password:</p>
${mailLink(link, "Accept the invitation")}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>If you do not know the shop, ignore this mail: no account is made.</p>`,
      }),
    };
  },
});

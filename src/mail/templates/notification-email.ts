// Mail about where the shop's own mail goes (CONTRACT 12): the link that confirms a new address
// (the row's secret: one day, one use; the setting changes only when it is followed), and the
// note to a remaining owner that the shop's mail now comes to them because the member it went to
// was removed or is no longer an owner.
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

export const notificationEmailConfirmMail = defineMail<{ shopName: string; requesterName: string }>({
  audience: "account",
  render(data, ctx) {
    const link =
      ctx.secret === null
        ? "(the link is no longer stored)"
        : `${ctx.publicUrl}/notification-email/confirm?token=${encodeURIComponent(ctx.secret)}`;
    return {
      subject: oneLine(`Confirm this address for ${data.shopName}'s notifications`),
      text: `${data.requesterName} asked that ${data.shopName}'s notifications on vendor-api (new inquiries from its website) come to this address.

To confirm, open this link within one day (it works once):
${link}

Until it is followed, they keep going where they go now. If you do not know the shop, ignore this mail.
`,
      html: mailFrame({
        heading: `Notifications of ${data.shopName}`,
        body: html`<p>${data.requesterName} asked that ${data.shopName}'s notifications on vendor-api (new inquiries from its website) come to this address.</p>
<p>To confirm, open this link within one day (it works once):</p>
${mailLink(link, "Confirm this address")}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>Until it is followed, they keep going where they go now. If you do not know the shop, ignore this mail.</p>`,
      }),
    };
  },
});

export const notificationEmailMovedMail = defineMail<{ shopName: string; reason: "removed" | "demoted" }>({
  audience: "shop",
  render(data, ctx) {
    const settings = `${ctx.publicUrl}/dashboard/settings`;
    const why =
      data.reason === "removed"
        ? "the member they went to was removed from the shop"
        : "the member they went to is no longer an owner";
    return {
      subject: oneLine(`${data.shopName}'s notifications now come to you`),
      text: `${data.shopName}'s notifications on vendor-api (new inquiries from its website) now come to this address: ${why}.

To send them elsewhere, change the address under Settings:
${settings}
`,
      html: mailFrame({
        heading: "Notifications now come to you",
        body: html`<p>${data.shopName}'s notifications on vendor-api (new inquiries from its website) now come to this address: ${why}.</p>
<p>To send them elsewhere, change the address under Settings:</p>
${mailLink(settings, "Open Settings")}`,
      }),
    };
  },
});

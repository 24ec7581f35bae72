// Mail to a person getting into an account: the password-reset link, the sign-up confirmation,
// and the note that an address is already registered (sign-up answers the same either way, so
// only the address's owner learns which it was). The link's token is the row's secret.
import { html } from "../../lib/html.ts";
import { defineMail, type RenderContext } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

const linkOrGone = (ctx: RenderContext, path: string) =>
  ctx.secret === null
    ? "(the link is no longer stored)"
    : `${ctx.publicUrl}${path}${encodeURIComponent(ctx.secret)}`;

export const passwordResetMail = defineMail<{ shopName: string }>({
  audience: "account",
  render(data, ctx) {
    const link = linkOrGone(ctx, "/reset-password?token=");
    return {
      subject: "Reset your vendor-api password",
      text: `Someone asked to reset the password of ${data.shopName}'s vendor-api account.

To choose a new password, open this link within one hour (it works once):
${link}

If it was not you, ignore this mail: your password stays as it is.
`,
      html: mailFrame({
        heading: "Reset your password",
        body: html`<p>Someone asked to reset the password of ${data.shopName}'s vendor-api account.</p>
<p>To choose a new password, open this link within one hour (it works once):</p>
${mailLink(link, "Choose a new password")}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>If it was not you, ignore this mail: your password stays as it is.</p>`,
      }),
    };
  },
});

export const signupConfirmMail = defineMail<{ shopName: string }>({
  audience: "account",
  render(data, ctx) {
    const link = linkOrGone(ctx, "/signup/confirm?token=");
    return {
      subject: "Confirm your e-mail address for vendor-api",
      text: `Welcome to vendor-api. To create the account of ${data.shopName}, confirm this address by opening this link within one day:
${link}

If you did not sign up, ignore this mail: no account is made.
`,
      html: mailFrame({
        heading: "Confirm your e-mail address",
        body: html`<p>Welcome to vendor-api. To create the account of ${data.shopName}, confirm this address by opening this link within one day:</p>
${mailLink(link, "Confirm and create the account")}
<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>
<p>If you did not sign up, ignore this mail: no account is made.</p>`,
      }),
    };
  },
});

export const signupExistingMail = defineMail<Record<string, never>>({
  audience: "account",
  render(_data, ctx) {
    const login = `${ctx.publicUrl}/login`;
    const forgot = `${ctx.publicUrl}/forgot-password`;
    return {
      subject: "You already have a vendor-api account",
      text: `Someone tried to create a vendor-api account with this address, which already has one.

If it was you, sign in: ${login}
Forgot the password? ${forgot}

If it was not you, ignore this mail: nothing changed.
`,
      html: mailFrame({
        heading: "You already have an account",
        body: html`<p>Someone tried to create a vendor-api account with this address, which already has one.</p>
<p>If it was you, <a href="${login}">sign in</a>; forgot the password? <a href="${forgot}">Reset it</a>.</p>
<p>If it was not you, ignore this mail: nothing changed.</p>`,
      }),
    };
  },
});

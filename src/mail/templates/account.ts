// Mail to a person getting into an account: the password-reset link, the sign-up confirmation,
// and the note that an address is already registered (sign-up answers the same either way, so
// only the address's owner learns which it was). The link's token is the row's secret. Each is in
// the person's language (`language`: the member's, or the one chosen at sign-up; rows written
// before it existed read English) and names the product by PRODUCT_NAME.
import { DEFAULT_PRODUCT_NAME } from "../../config.ts";
import { isLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { html } from "../../lib/html.ts";
import { defineMail, type RenderContext } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

/** The reader of a mail: its row's language (English when absent or unknown). */
export function mailReader(language: string | null | undefined): Translator {
  return translator(isLanguage(language) ? language : "en");
}

export const productOf = (ctx: RenderContext) => ctx.productName ?? DEFAULT_PRODUCT_NAME;

export const linkOrGone = (t: Translator, ctx: RenderContext, path: string) =>
  ctx.secret === null ? t.t("shopMail.linkGone") : `${ctx.publicUrl}${path}${encodeURIComponent(ctx.secret)}`;

const smallLink = (link: string) =>
  html`<p style="word-break:break-all;color:#666;font-size:.85rem">${link}</p>`;

export const passwordResetMail = defineMail<{ shopName: string; language?: string | null }>({
  audience: "account",
  render(data, ctx) {
    const t = mailReader(data.language);
    const link = linkOrGone(t, ctx, "/reset-password?token=");
    const v = { shop: data.shopName, product: productOf(ctx) };
    return {
      subject: t.t("shopMail.reset.subject", v),
      text: `${t.t("shopMail.reset.asked", v)}

${t.t("shopMail.reset.open")}
${link}

${t.t("shopMail.reset.notYou")}
`,
      html: mailFrame({
        heading: t.t("shopMail.reset.heading"),
        body: html`<p>${t.t("shopMail.reset.asked", v)}</p>
<p>${t.t("shopMail.reset.open")}</p>
${mailLink(link, t.t("shopMail.reset.button"))}
${smallLink(link)}
<p>${t.t("shopMail.reset.notYou")}</p>`,
        lang: t.locale,
      }),
    };
  },
});

export const signupConfirmMail = defineMail<{ shopName: string; language?: string | null }>({
  audience: "account",
  render(data, ctx) {
    const t = mailReader(data.language);
    const link = linkOrGone(t, ctx, "/signup/confirm?token=");
    const v = { shop: data.shopName, product: productOf(ctx) };
    return {
      subject: t.t("shopMail.signup.subject", v),
      text: `${t.t("shopMail.signup.welcome", v)}
${link}

${t.t("shopMail.signup.notYou")}
`,
      html: mailFrame({
        heading: t.t("shopMail.signup.heading"),
        body: html`<p>${t.t("shopMail.signup.welcome", v)}</p>
${mailLink(link, t.t("shopMail.signup.button"))}
${smallLink(link)}
<p>${t.t("shopMail.signup.notYou")}</p>`,
        lang: t.locale,
      }),
    };
  },
});

export const signupExistingMail = defineMail<{ language?: string | null }>({
  audience: "account",
  render(data, ctx) {
    const t = mailReader(data.language);
    const login = `${ctx.publicUrl}/login`;
    const forgot = `${ctx.publicUrl}/forgot-password`;
    const v = { product: productOf(ctx) };
    return {
      subject: t.t("shopMail.existing.subject", v),
      text: `${t.t("shopMail.existing.tried", v)}

${t.t("shopMail.existing.signIn")} ${login}
${t.t("shopMail.existing.forgot")} ${forgot}

${t.t("shopMail.existing.notYou")}
`,
      html: mailFrame({
        heading: t.t("shopMail.existing.heading"),
        body: html`<p>${t.t("shopMail.existing.tried", v)}</p>
<p>${t.t("shopMail.existing.signIn")} <a href="${login}">${login}</a></p>
<p>${t.t("shopMail.existing.forgot")} <a href="${forgot}">${forgot}</a></p>
<p>${t.t("shopMail.existing.notYou")}</p>`,
        lang: t.locale,
      }),
    };
  },
});

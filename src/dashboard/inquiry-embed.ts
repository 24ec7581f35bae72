// Settings' "Inquiries from your website": the shop's id, its hosted inquiry page, and a form to
// paste into the shop's own site (copyable), posting straight to the public endpoint. The form's
// labels are in the shop's language (its visitors read them), with that language as a hidden
// field so the customer an inquiry becomes is written to in it; the section around it is in the
// reader's (the member's) locale.
import { isLanguage } from "../i18n/languages.ts";
import { translator } from "../i18n/translator.ts";
import { HONEYPOT_FIELD, RETURN_FIELD } from "../modules/inquiries/inquiry-form.ts";
import type { ShopSettings } from "../modules/vendors/shop-settings.ts";
import { html, type SafeHtml } from "../web/html.ts";

/** Text for inside an HTML attribute or element of the pasted snippet. */
export const escapeText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

export function embedSnippet(
  vendorId: string,
  publicUrl: string,
  website: string | null,
  language = "en",
): string {
  const t = translator(isLanguage(language) ? language : "en");
  const l = (key: string) => escapeText(t.t(`customer.inquiry.${key}`));
  const action = `${publicUrl}/api/public/vendors/${vendorId}/inquiries`;
  const back = website
    ? `\n  <input type="hidden" name="${RETURN_FIELD}" value="${website}/">  <!-- ${escapeText(t.t("customer.embed.back", { website })).replaceAll("--", "–")} -->`
    : "";
  const lang = isLanguage(language) ? `\n  <input type="hidden" name="language" value="${language}">` : "";
  return `<form method="post" action="${action}" accept-charset="utf-8">${back}${lang}
  <p style="position:absolute;left:-9999px" aria-hidden="true"><label>${l("trap")} <input name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></p>
  <label>${l("name")} <input name="name" required maxlength="200"></label>
  <label>${l("email")} <input name="email" type="email" required maxlength="254"></label>
  <label>${l("phone")} <input name="phone" type="tel" maxlength="50"></label>
  <label>${l("weddingDate")} <input name="weddingDate" type="date"></label>
  <label>${l("message")} <textarea name="message" required maxlength="5000"></textarea></label>
  <button type="submit">${l("send")}</button>
</form>`;
}

/** A placeholder's value that marks where the link goes in a translated sentence. */
const MARK = "\u2063";
const withLink = (sentence: string, address: string): SafeHtml => {
  const [before = "", after = ""] = sentence.split(MARK);
  return html`${before}<a href="#notifications">${address}</a>${after}`;
};

export function inquiryEmbed(
  shop: ShopSettings & { language?: string },
  vendorId: string,
  publicUrl: string,
  notificationAddress: string,
  locale: string = shop.language ?? "en",
): SafeHtml {
  const t = translator(locale);
  const hosted = `${publicUrl}/inquiry/${vendorId}`;
  return html`<h2>${t.t("customer.embed.heading")}</h2>
<p>${t.t("customer.embed.shopId")} <code id="shop-id">${vendorId}</code></p>
<p>${t.t("customer.embed.page")} <a href="${hosted}" target="_blank" rel="noopener">${hosted}</a> ${t.t("customer.embed.anywhere")}</p>
<label for="embed-snippet">${t.t("customer.embed.paste")}</label>
<div class="copy-row"><textarea id="embed-snippet" readonly rows="12">${embedSnippet(vendorId, publicUrl, shop.website, shop.language ?? "en")}</textarea>
<button type="button" data-copy-from="embed-snippet" hidden>${t.t("customer.embed.copy")}</button></div>
<p class="muted">${withLink(t.t("customer.embed.mailedTo", { address: MARK }), notificationAddress)} ${t.t("customer.embed.scripts", { path: `/api/public/vendors/${vendorId}/inquiries` })}</p>
<script src="/assets/copy-secret.js" defer></script>`;
}

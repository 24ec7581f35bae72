// Online booking's "Your booking page": the shop's hosted booking page (/book/{shop id}) with a
// Copy button, and a button for the shop's own website. The booking page forbids framing
// (frame-ancestors 'none', as every page here) and is several steps (type, day, time, details),
// so unlike the inquiry form (one POST, inquiry-embed.ts) it cannot be pasted as a form: the
// honest embed is a link styled as a button, opening the hosted page. Its label is in the shop's
// language (its visitors read it), in the shop's accent colour when it has one; the section
// around it is in the reader's.
import type { ServiceContext } from "../context.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import { getShopBrand } from "../modules/vendors/shop-brand.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { escapeText } from "./inquiry-embed.ts";

export function bookingSnippet(url: string, language: string, accentColor: string | null): string {
  const label = escapeText(translator(language).t("dashboard.bookingSettings.snippetButton"));
  const colour = accentColor ?? "#6b2e5f";
  return `<a href="${escapeText(url)}" target="_blank" rel="noopener" style="display:inline-block;padding:.7em 1.2em;border-radius:6px;background:${colour};color:#fff;text-decoration:none;font:inherit">${label}</a>`;
}

export async function bookingLinkSection(
  ctx: ServiceContext,
  t: Translator,
  vendorId: string,
  publicUrl: string,
): Promise<SafeHtml> {
  const shop = await getShopBrand(ctx, vendorId);
  const url = `${publicUrl}/book/${vendorId}`;
  const k = (key: string) => t.t(`dashboard.bookingSettings.${key}`);
  return html`<h2 id="booking-link">${k("linkHeading")}</h2>
<p class="muted">${k("linkIntro")}</p>
<label for="booking-url">${k("linkLabel")}</label>
<div class="copy-row"><input id="booking-url" type="text" readonly value="${url}">
<button type="button" data-copy-from="booking-url" hidden>${k("copy")}</button></div>
<p><a href="${url}" target="_blank" rel="noopener">${k("open")}</a></p>
<label for="booking-snippet">${k("snippetLabel")}</label>
<div class="copy-row"><textarea id="booking-snippet" readonly rows="4">${bookingSnippet(url, shop.language, shop.accentColor)}</textarea>
<button type="button" data-copy-from="booking-snippet" hidden>${k("copy")}</button></div>
<p class="muted">${k("snippetNote")}</p>
<script src="/assets/copy-secret.js" defer></script>`;
}

// Settings' "Inquiries from your website": the shop's id, its hosted inquiry page, and a form to
// paste into the shop's own site (copyable), posting straight to the public endpoint.
import { HONEYPOT_FIELD, RETURN_FIELD } from "../modules/inquiries/inquiry-form.ts";
import type { ShopSettings } from "../modules/vendors/shop-settings.ts";
import { html, type SafeHtml } from "../web/html.ts";

export function embedSnippet(vendorId: string, publicUrl: string, website: string | null): string {
  const action = `${publicUrl}/api/public/vendors/${vendorId}/inquiries`;
  const back = website
    ? `\n  <input type="hidden" name="${RETURN_FIELD}" value="${website}/">  <!-- where visitors land afterwards: any page of ${website} -->`
    : "";
  return `<form method="post" action="${action}" accept-charset="utf-8">${back}
  <p style="position:absolute;left:-9999px" aria-hidden="true"><label>Leave this empty <input name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></p>
  <label>Name <input name="name" required maxlength="200"></label>
  <label>E-mail <input name="email" type="email" required maxlength="254"></label>
  <label>Phone <input name="phone" type="tel" maxlength="50"></label>
  <label>Wedding date <input name="weddingDate" type="date"></label>
  <label>Message <textarea name="message" required maxlength="5000"></textarea></label>
  <button type="submit">Send</button>
</form>`;
}

export function inquiryEmbed(
  shop: ShopSettings,
  vendorId: string,
  publicUrl: string,
  notificationAddress: string,
): SafeHtml {
  const hosted = `${publicUrl}/inquiry/${vendorId}`;
  return html`<h2>Inquiries from your website</h2>
<p>Your shop's id: <code id="shop-id">${vendorId}</code></p>
<p>Your inquiry page: <a href="${hosted}" target="_blank" rel="noopener">${hosted}</a> (link to it from anywhere).</p>
<label for="embed-snippet">Or paste this form into your website</label>
<div class="copy-row"><textarea id="embed-snippet" readonly rows="12">${embedSnippet(vendorId, publicUrl, shop.website)}</textarea>
<button type="button" data-copy-from="embed-snippet" hidden>Copy</button></div>
<p class="muted">Each inquiry appears under Inquiries and is mailed to <a href="#notifications">${notificationAddress}</a>. Scripts may also post JSON to <code>/api/public/vendors/${vendorId}/inquiries</code> from any origin.</p>
<script src="/assets/copy-secret.js" defer></script>`;
}

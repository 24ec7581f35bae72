// The status history of an order, oldest first: on the vendor's order page and on the
// customer's tracking page alike, so both show the same messages and photos.
import type { Translator } from "../../i18n/translator.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { time } from "../layout.ts";
import { isWebUrl, orderStatusName, statusBadge } from "./common.ts";

export interface TimelineEntry {
  status: string;
  message: string | null;
  imageUrl: string | null;
  /** Photos uploaded for the entry (CONTRACT 12): thumbnails linking to the full JPEG. */
  photos?: ReadonlyArray<{ id: string; url: string; thumbnailUrl: string }>;
  createdAt: string;
}

export function timeline(updates: readonly TimelineEntry[], timeZone: string, t: Translator): SafeHtml {
  return html`<ol class="timeline">${updates.map((u) => {
    const status = orderStatusName(t, u.status);
    return html`<li data-status="${u.status}">
<div>${statusBadge(u.status, status)} ${time(u.createdAt, timeZone, t)}</div>
${u.message ? html`<p class="message">${u.message}</p>` : ""}
${
  isWebUrl(u.imageUrl)
    ? html`<a href="${u.imageUrl}" target="_blank" rel="noopener noreferrer"><img src="${u.imageUrl}" alt="${t.t("customer.tracking.photo", { status })}" loading="lazy"></a>`
    : ""
}
${
  u.photos && u.photos.length > 0
    ? html`<div class="photos">${u.photos.map(
        (p, i) =>
          html`<a href="${p.url}" target="_blank" rel="noopener noreferrer" data-photo="${p.id}"><img src="${p.thumbnailUrl}" alt="${t.t("dashboard.orders.photoAlt", { number: i + 1, status })}" loading="lazy"></a>`,
      )}</div>`
    : ""
}
</li>`;
  })}</ol>`;
}

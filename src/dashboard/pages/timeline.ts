// The status history of an order, oldest first: on the vendor's order page and on the
// customer's tracking page alike, so both show the same messages and photos.
import { html, type SafeHtml } from "../../web/html.ts";
import { time } from "../layout.ts";
import { humanize, isWebUrl, statusBadge } from "./common.ts";

export interface TimelineEntry {
  status: string;
  message: string | null;
  imageUrl: string | null;
  createdAt: string;
}

export function timeline(updates: readonly TimelineEntry[], timeZone: string): SafeHtml {
  return html`<ol class="timeline">${updates.map(
    (u) => html`<li data-status="${u.status}">
<div>${statusBadge(u.status)} ${time(u.createdAt, timeZone)}</div>
${u.message ? html`<p class="message">${u.message}</p>` : ""}
${
  isWebUrl(u.imageUrl)
    ? html`<a href="${u.imageUrl}" target="_blank" rel="noopener noreferrer"><img src="${u.imageUrl}" alt="Photo: ${humanize(u.status)}" loading="lazy"></a>`
    : ""
}
</li>`,
  )}</ol>`;
}

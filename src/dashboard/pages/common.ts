// Small pieces shared by the data pages (orders, customers, appointments, inquiries, tracking).
import { html, type SafeHtml } from "../../web/html.ts";

/** "IN_PRODUCTION" → "In production": statuses and types as people read them. */
export function humanize(code: string): string {
  const words = code.toLowerCase().replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A status badge; the raw code stays in data-status for tests and styling. */
export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge status" data-status="${status}">${humanize(status)}</span>`;
}

/** Shows an image link only for http(s) URLs: the API accepts no other scheme, this is belt and braces. */
export function isWebUrl(url: string | null | undefined): url is string {
  return typeof url === "string" && /^https?:\/\//i.test(url);
}

// The Integrations pages' words: the catalogue section `dashboard.integrations` (the delivery
// log's filters and "All events" stay in `deliveries`, their one home), always in the page's
// reader's language (page.t, or readerOf(request).t for a flash said before the next page).
import type { MessageValues, Translator } from "../../i18n/translator.ts";
import { html, type SafeHtml } from "../../web/html.ts";

/** `dashboard.integrations.<key>` in the reader's language. */
export function say(t: Translator, key: string, values?: MessageValues): string {
  return t.t(`dashboard.integrations.${key}`, values);
}

/**
 * A status badge in the reader's words; the code stays in data-status (tests, styling). Order,
 * appointment and webhook statuses share one list: the same code reads the same everywhere here.
 */
export function statusBadge(t: Translator, status: string): SafeHtml {
  const key = `dashboard.integrations.status.${status}`;
  return html`<span class="badge status" data-status="${status}">${t.has(key) ? t.t(key) : status}</span>`;
}

// Small pieces shared by the data pages (orders, customers, appointments, inquiries, tracking).
import { AppError } from "../../errors.ts";
import { fromLocalInput } from "../../lib/time-zone.ts";
import { type Form, field, optional } from "../../web/form.ts";
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

/** A typed duration in minutes: a number when it is one, else the text, for the schema to refuse. */
export function durationOf(text: string): number | string {
  return /^\d{1,3}$/.test(text) ? Number(text) : text;
}

/** An appointment form's date, time, duration and notes, the date read in the shop's time zone. */
export function appointmentTimeOf(form: Form, timeZone: string) {
  const date = fromLocalInput(field(form, "date"), timeZone);
  if (!date) throw new AppError("validation_failed", "When must be a date and time.");
  return {
    date: date.toISOString(),
    duration: durationOf(field(form, "duration")),
    notes: optional(field(form, "notes")),
  };
}

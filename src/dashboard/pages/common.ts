// Small pieces shared by the data pages (orders, customers, appointments, inquiries, tracking).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { fromLocalInput } from "../../lib/time-zone.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { type Form, field, optional } from "../../web/form.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { dashboardPage, type PageContext, type Section } from "../layout.ts";
import { pageContext } from "../page-context.ts";

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

/**
 * A create or edit form shown again after saveForm refused it: the page with an error flash that
 * says what was not done, the form below it (with its errors marked), answered with `status`.
 */
export async function showFormAgain(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  page: { section: Section; title: string; notDone: string },
  form: (pageCtx: PageContext) => SafeHtml | Promise<SafeHtml>,
): Promise<FastifyReply> {
  const pageCtx = await pageContext(ctx, request, reply);
  pageCtx.flash = { kind: "error", message: `${page.notDone}: please correct the fields marked below.` };
  return sendPage(reply, status, dashboardPage(pageCtx, page.section, page.title, await form(pageCtx)));
}

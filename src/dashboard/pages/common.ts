// Small pieces shared by the data pages (orders, customers, appointments, inquiries, tracking).
import type { TSchema } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import type { FieldError } from "../../errors.ts";
import { baseLanguage } from "../../i18n/languages.ts";
import type { MessageValues, Translator } from "../../i18n/translator.ts";
import { DISPLAY_NAME_RULE } from "../../lib/display-name.ts";
import { DATE_RULE } from "../../lib/instants.ts";
import { fromLocalInput } from "../../lib/time-zone.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { type Form, field, formErrors, optional } from "../../web/form.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { ReaderRefusal } from "../../web/refusal.ts";
import { dashboardPage, type PageContext, type Section } from "../layout.ts";
import { pageContext } from "../page-context.ts";

/** "IN_PRODUCTION" → "In production": statuses and types as people read them. */
export function humanize(code: string): string {
  const words = code.toLowerCase().replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An order status as the shop's people read it, in their language ("Fitting ready"). */
export function orderStatusName(t: Translator, status: string): string {
  const key = `dashboard.orders.status.${status}`;
  return t.has(key) ? t.t(key) : humanize(status);
}

/** An order type in the reader's language ("Bridal dress"). */
export function orderTypeName(t: Translator, type: string): string {
  const key = `today.type.${type}`;
  return t.has(key) ? t.t(key) : humanize(type);
}

/**
 * A status badge; the raw code stays in data-status for tests and styling. The label is the
 * status in the reader's language (orderStatusName...): there is no English default.
 */
export function statusBadge(status: string, label: string): SafeHtml {
  return html`<span class="badge status" data-status="${status}">${label}</span>`;
}

/**
 * A message with markup in it (a <time>, a link): the text is escaped, each `parts` value goes
 * in as it is at its placeholder, so a language can put it wherever its sentence needs it.
 */
export function messageWithHtml(
  t: Translator,
  key: string,
  values: MessageValues,
  parts: Record<string, SafeHtml>,
): SafeHtml {
  const marks = Object.fromEntries(Object.keys(parts).map((name) => [name, `\uE000${name}\uE001`]));
  const text = t.t(key, { ...values, ...marks });
  const pieces = text.split(/\uE000([^\uE001]*)\uE001/);
  // split with a capture group: text, part name, text, part name, ..., text.
  return html`${pieces.map((piece, i) => (i % 2 === 1 ? (parts[piece] ?? "") : piece))}`;
}

/**
 * A schema's sentence about a field (CONTRACT 2's wording, English) in the reader's language:
 * the ones a dashboard form can meet by name; any other is "is not valid" in their language
 * (an English reader keeps the schema's own words).
 */
export function fieldProblem(t: Translator, message: string): string {
  const k = (key: string, values?: MessageValues) => t.t(`dashboard.orders.errors.${key}`, values);
  if (message === "is required") return k("required");
  if (message === "is not an accepted field") return k("notAccepted");
  if (message === "must be a valid e-mail address") return k("email");
  if (message === "must be a valid absolute URL") return k("url");
  if (message === DATE_RULE) return k("date");
  if (message === DISPLAY_NAME_RULE) return k("displayName");
  // The pattern of a photo's or image's URL (orders.schemas.ts): http(s) only.
  if (message === 'must match pattern "^[Hh][Tt][Tt][Pp][Ss]?://"') return k("webUrl");
  const longer = /^must NOT have more than (\d+) characters$/.exec(message);
  if (longer) return k("tooLong", { max: longer[1] ?? "" });
  const shorter = /^must NOT have fewer than (\d+) characters$/.exec(message);
  if (shorter) return k("tooShort", { min: shorter[1] ?? "" });
  const oneOf = /^must be one of: (.*)$/.exec(message);
  if (oneOf) return k("oneOf", { list: oneOf[1] ?? "" });
  return t.locale === baseLanguage ? message : t.t("refusals.field.invalid");
}

/**
 * Field errors with their sentences in the reader's language (the fields stay as they are). The
 * whole form's refusal ("(form)") is already in their words (saveForm, web/refusal.ts).
 */
export function localizedErrors(t: Translator, errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => (e.field === "(form)" ? e : { ...e, message: fieldProblem(t, e.message) }));
}

/**
 * Refuses `value` unless it passes the body schema, in the reader's language:
 * validation_failed with every error in its message, each field named by its label.
 */
export function assertFormValidIn(
  t: Translator,
  schema: TSchema,
  value: unknown,
  labels: Record<string, string>,
): void {
  const errors = formErrors(schema, value);
  if (errors.length === 0) return;
  throw new ReaderRefusal(
    "validation_failed",
    errors
      .map((e) =>
        t.t("dashboard.orders.errors.field", {
          field: labels[e.field] ?? e.field,
          problem: fieldProblem(t, e.message),
        }),
      )
      .join("; "),
  );
}

/** Shows an image link only for http(s) URLs: the API accepts no other scheme, this is belt and braces. */
export function isWebUrl(url: string | null | undefined): url is string {
  return typeof url === "string" && /^https?:\/\//i.test(url);
}

/** A typed duration in minutes: a number when it is one, else the text, for the schema to refuse. */
export function durationOf(text: string): number | string {
  return /^\d{1,3}$/.test(text) ? Number(text) : text;
}

/**
 * An appointment form's date, time, duration and notes, the date read in the shop's time zone;
 * a refusal in the reader's language.
 */
export function appointmentTimeOf(form: Form, timeZone: string, t: Translator) {
  const date = fromLocalInput(field(form, "date"), timeZone);
  if (!date) throw new ReaderRefusal("validation_failed", t.t("dashboard.orders.common.whenInvalid"));
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
  pageCtx.flash = {
    kind: "error",
    message: pageCtx.t.t("dashboard.orders.common.correctFields", { notDone: page.notDone }),
  };
  return sendPage(reply, status, dashboardPage(pageCtx, page.section, page.title, await form(pageCtx)));
}

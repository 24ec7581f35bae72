// The customer edit form: rendered from the customer, or re-rendered from what was posted with
// the errors next to their fields. Measurements and preferences (free-form JSON objects in the
// API, spec 2) are edited as labelled rows, a name and a value each, not as raw JSON: the rows
// the customer has plus a few empty ones, and "Add rows" posts the form back with more, so it
// works without JavaScript. A value that reads as a number is stored as a number; a nested value
// (an object, a list, true/false) is shown and read back as JSON; anything else is text.

import type { FieldError } from "../../errors.ts";
import { languages } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import type { CustomerJson } from "../../modules/customers/customers.presenter.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";

export interface CustomerForm {
  name: string;
  email: string;
  phone: string;
  weddingDate: string;
  /** One of the languages, or "" for the shop's. */
  language: string;
  notes: string;
  measurements: Row[];
  preferences: Row[];
}

/** One labelled row of measurements or preferences, as typed. */
export interface Row {
  name: string;
  value: string;
}

export type RowField = "measurements" | "preferences";
export const rowFields: readonly RowField[] = ["measurements", "preferences"];

/** Empty rows offered under the filled ones, and added by each "Add rows". */
export const EMPTY_ROWS = 3;
/** At most this many rows in one form (the stored object is bounded anyway: 16 KiB). */
export const MAX_ROWS = 100;

/** The names a row's inputs post under (repeated, in order): `measurements.name`, `measurements.value`. */
export const rowNameField = (field: RowField) => `${field}.name`;
export const rowValueField = (field: RowField) => `${field}.value`;

function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** An object's entries as rows, in its key order. */
export function rowsOf(value: Record<string, unknown> | null): Row[] {
  return Object.entries(value ?? {}).map(([name, v]) => ({ name, value: valueText(v) }));
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

function storedValue(text: string): unknown {
  const trimmed = text.trim();
  if (NUMBER.test(trimmed)) return Number(trimmed);
  if (/^[[{]/.test(trimmed) || trimmed === "true" || trimmed === "false") {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Rows → the object the API stores (null when every row is empty). A row with a value and no
 * name, and a name used twice, are field errors naming the row (`measurements.2`), in the
 * reader's language.
 */
export function objectOf(
  t: Translator,
  field: RowField,
  rows: readonly Row[],
  errors: FieldError[],
): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let any = false;
  rows.forEach((row, i) => {
    const name = row.name.trim();
    if (name === "") {
      if (row.value.trim() !== "")
        errors.push({
          field: `${field}.${i + 1}`,
          message: t.t("dashboard.customers.errors.valueWithoutName", { row: i + 1 }),
        });
      return;
    }
    if (Object.hasOwn(out, name)) {
      errors.push({
        field: `${field}.${i + 1}`,
        message: t.t("dashboard.customers.errors.nameUsedAbove", { row: i + 1, name }),
      });
      return;
    }
    out[name] = storedValue(row.value);
    any = true;
  });
  return any ? out : null;
}

/**
 * The API's field errors (its schema's and the service's, written for developers) as the form
 * shows them, in the reader's language: the English catalogue keeps each English message as the
 * API words it. A message not listed here is shown as it comes.
 */
const apiMessages: Array<[RegExp, string]> = [
  [/^is already used by another customer$/, "emailTaken"],
  [/^must be a valid e-mail address$/, "emailFormat"],
  [/^must be a date, YYYY-MM-DD, in years 0001-9999$/, "dateFormat"],
  [/^must not be blank or contain control characters \(such as line breaks\)$/, "blankName"],
  [/^must NOT have fewer than 1 characters$/, "empty"],
  [/^must NOT have more than (?<max>\d+) characters$/, "tooLong"],
];

export function localizedFieldError(t: Translator, error: FieldError): FieldError {
  for (const [pattern, key] of apiMessages) {
    const match = pattern.exec(error.message);
    if (match) return { ...error, message: t.t(`dashboard.customers.errors.${key}`, { ...match.groups }) };
  }
  return error;
}

/** The rows a form posted for `field` (names and values pair up by position). */
export function postedRows(names: readonly string[], values: readonly string[]): Row[] {
  const count = Math.min(Math.max(names.length, values.length), MAX_ROWS);
  return Array.from({ length: count }, (_, i) => ({ name: names[i] ?? "", value: values[i] ?? "" }));
}

/** The rows shown: the filled ones, then `extra` empty ones (up to MAX_ROWS in all). */
export function withEmptyRows(rows: readonly Row[], extra = EMPTY_ROWS): Row[] {
  const filled = rows.filter((r) => r.name.trim() !== "" || r.value.trim() !== "");
  const empty = Math.max(0, Math.min(extra, MAX_ROWS - filled.length));
  return [...filled, ...Array.from({ length: empty }, () => ({ name: "", value: "" }))];
}

export function formFromCustomer(c: CustomerJson): CustomerForm {
  return {
    name: c.name,
    email: c.email ?? "",
    phone: c.phone ?? "",
    weddingDate: c.weddingDate ?? "",
    language: c.language ?? "",
    notes: c.notes ?? "",
    measurements: withEmptyRows(rowsOf(c.measurements)),
    preferences: withEmptyRows(rowsOf(c.preferences)),
  };
}

/** The name of the submit button that posts the form back with more empty rows, and its values. */
export const ADD_ROWS_FIELD = "addRows";

/** A section's heading and its row labels: dashboard.customers.<field>.* in the catalogues. */
function rowsFieldset(
  t: Translator,
  field: RowField,
  rows: readonly Row[],
  errorFor: (f: string) => SafeHtml,
): SafeHtml {
  const k = (key: string, values?: Record<string, string | number>) =>
    t.t(`dashboard.customers.${field}.${key}`, values);
  return html`<fieldset class="rows" id="${field}"><legend>${k("title")}</legend>
<p class="muted">${t.t("dashboard.customers.rows.hint", { example: k("example") })}</p>
<div class="row-head" aria-hidden="true"><span>${t.t("common.name")}</span><span>${t.t("dashboard.customers.rows.value")}</span></div>
${rows.map(
  (row, i) => html`<div class="row-pair">
<input name="${rowNameField(field)}" value="${row.name}" aria-label="${k("rowName", { row: i + 1 })}" maxlength="200">
<input name="${rowValueField(field)}" value="${row.value}" aria-label="${k("rowValue", { row: i + 1 })}" maxlength="2000">
</div>`,
)}
${errorFor(field)}
<button type="submit" name="${ADD_ROWS_FIELD}" value="${field}" formnovalidate>${t.t("dashboard.customers.rows.add")}</button>
</fieldset>`;
}

const labels: Array<[keyof CustomerForm, string, string]> = [
  ["name", "common.name", "text"],
  ["email", "common.email", "email"],
  ["phone", "common.phone", "tel"],
  ["weddingDate", "common.weddingDate", "date"],
];

/** The customer's language: one of ours, each in its own name, or the shop's (stored as null). */
function languageSelect(t: Translator, value: string, described: SafeHtml): SafeHtml {
  return html`<label for="language">${t.t("common.language")}</label>
<select id="language" name="language"${described}>
<option value="">${t.t("customer.language.shopDefault", { language: "–" })}</option>
${languages.map((l) => html`<option value="${l}"${l === value ? html` selected` : ""}>${translator(l).t("language.name")}</option>`)}
</select>`;
}

/** The edit form of customer `id`, or the new-customer form when `id` is null, in `t`'s language. */
export function customerEditForm(
  t: Translator,
  id: string | null,
  form: CustomerForm,
  errors: FieldError[],
  csrf: string,
): SafeHtml {
  const submit = id ? t.t("common.save") : t.t("dashboard.customers.form.add");
  const errorFor = (field: string) => {
    const messages = errors.filter((e) => e.field === field || e.field.startsWith(`${field}.`));
    return messages.length === 0
      ? html``
      : html`<p class="field-error" id="${field}-error">${messages.map((e) => e.message).join("; ")}</p>`;
  };
  const described = (field: string) =>
    errors.some((e) => e.field === field || e.field.startsWith(`${field}.`))
      ? html` aria-invalid="true" aria-describedby="${field}-error"`
      : html``;
  const other = errors.filter((e) => !Object.hasOwn(form, e.field.split(".")[0] ?? ""));
  const action = id ? `/dashboard/customers/${id}` : "/dashboard/customers";
  // The first submit button is the one Enter presses (HTML implicit submission): Save, not "Add rows".
  return html`<form method="post" action="${action}" class="customer-form">
${csrfField(csrf)}
<button type="submit" class="implicit-submit" tabindex="-1" aria-hidden="true">${submit}</button>
${other.length > 0 ? html`<p class="field-error">${other.map((e) => `${e.field} ${e.message}`).join("; ")}</p>` : ""}
${labels.map(
  ([field, label, type]) => html`<label for="${field}">${t.t(label)}</label>
<input id="${field}" name="${field}" type="${type}" value="${form[field]}"${field === "name" ? html` required` : ""}${described(field)}>
${errorFor(field)}`,
)}
${languageSelect(t, form.language, described("language"))}
${errorFor("language")}
<label for="notes">${t.t("common.notes")}</label>
<textarea id="notes" name="notes"${described("notes")}>${form.notes}</textarea>
${errorFor("notes")}
${rowFields.map((f) => rowsFieldset(t, f, form[f], errorFor))}
<div class="actions"><button type="submit" class="primary">${submit}</button><a class="button" href="${id ? `/dashboard/customers/${id}` : "/dashboard/customers"}">${t.t("common.cancel")}</a></div>
</form>`;
}

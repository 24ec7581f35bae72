// The customer edit form: rendered from the customer, or re-rendered from what was posted with
// the errors next to their fields. Measurements and preferences are edited as JSON text.

import type { FieldError } from "../../errors.ts";
import type { CustomerJson } from "../../modules/customers/customers.presenter.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";

export interface CustomerForm {
  name: string;
  email: string;
  phone: string;
  weddingDate: string;
  notes: string;
  measurements: string;
  preferences: string;
}

export function formFromCustomer(c: CustomerJson): CustomerForm {
  const json = (v: Record<string, unknown> | null) => (v ? JSON.stringify(v, null, 2) : "");
  return {
    name: c.name,
    email: c.email ?? "",
    phone: c.phone ?? "",
    weddingDate: c.weddingDate ?? "",
    notes: c.notes ?? "",
    measurements: json(c.measurements),
    preferences: json(c.preferences),
  };
}

/** JSON text → an object (or null when empty); a parse error or a non-object is a field error. */
export function jsonField(field: string, text: string, errors: FieldError[]): Record<string, unknown> | null {
  if (text.trim() === "") return null;
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
    errors.push({ field, message: 'must be a JSON object, e.g. {"bust": 86}' });
  } catch {
    errors.push({ field, message: "is not valid JSON" });
  }
  return null;
}

const labels: Array<[keyof CustomerForm, string, string]> = [
  ["name", "Name", "text"],
  ["email", "E-mail", "email"],
  ["phone", "Phone", "tel"],
  ["weddingDate", "Wedding date", "date"],
];

/** The edit form of customer `id`, or the new-customer form when `id` is null. */
export function customerEditForm(
  id: string | null,
  form: CustomerForm,
  errors: FieldError[],
  csrf: string,
): SafeHtml {
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
  return html`<form method="post" action="${action}" class="customer-form">
${csrfField(csrf)}
${other.length > 0 ? html`<p class="field-error">${other.map((e) => `${e.field} ${e.message}`).join("; ")}</p>` : ""}
${labels.map(
  ([field, label, type]) => html`<label for="${field}">${label}</label>
<input id="${field}" name="${field}" type="${type}" value="${form[field]}"${field === "name" ? html` required` : ""}${described(field)}>
${errorFor(field)}`,
)}
<label for="notes">Notes</label>
<textarea id="notes" name="notes"${described("notes")}>${form.notes}</textarea>
${errorFor("notes")}
<label for="measurements">Measurements (JSON object)</label>
<textarea id="measurements" name="measurements" class="code"${described("measurements")}>${form.measurements}</textarea>
${errorFor("measurements")}
<label for="preferences">Preferences (JSON object)</label>
<textarea id="preferences" name="preferences" class="code"${described("preferences")}>${form.preferences}</textarea>
${errorFor("preferences")}
<div class="actions"><button type="submit" class="primary">${id ? "Save" : "Add customer"}</button><a class="button" href="${id ? `/dashboard/customers/${id}` : "/dashboard/customers"}">Cancel</a></div>
</form>`;
}

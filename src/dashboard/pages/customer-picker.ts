// The New order page's customer picker (CONTRACT 12, one customer, one record). Without
// JavaScript it is a search form (GET, the page again with what it found) and a select in the
// order form; with it, /assets/customer-picker.js fills the select as the member types, from
// /dashboard/customers/pick. Phone-first: the search looks in phone numbers first, and each
// option shows the phone before the name.

import type { FieldError } from "../../errors.ts";
import type { PickableCustomer } from "../../modules/customers/customer-picker.service.ts";
import { html, type SafeHtml } from "../../web/html.ts";

/** An option's text: phone first, then name and e-mail. */
export function pickerLabel(c: PickableCustomer): string {
  return [c.phone, c.name, c.email].filter((v) => v).join(" · ");
}

/** The search form, outside the order form (forms do not nest). */
export function customerSearchForm(find: string | undefined, found: number | undefined): SafeHtml {
  return html`<form method="get" action="/dashboard/orders/new" class="filter customer-search" role="search">
<label for="customer-find">Find a customer (phone, name or e-mail)</label>
<input id="customer-find" name="find" type="search" inputmode="search" maxlength="100" autocomplete="off" value="${find ?? ""}" aria-controls="customerId">
<div class="actions"><button type="submit">Find</button></div>
${found === undefined ? "" : html`<p class="muted" id="customer-find-result" role="status">${found === 0 ? "No customer matches: fill in a new one below." : `${found} found: choose below.`}</p>`}
</form>`;
}

/** The select inside the order form: a new customer, or one of `options` (`chosen` selected). */
export function customerSelect(
  options: readonly PickableCustomer[],
  chosen: string | undefined,
  errors: readonly FieldError[],
): SafeHtml {
  const error = errors.find((e) => e.field === "customerId");
  return html`<label for="customerId">Customer</label>
<select id="customerId" name="customerId" data-picker>
<option value="">New customer (fill in below)</option>
${options.map((c) => html`<option value="${c.id}"${c.id === chosen ? html` selected` : ""}>${pickerLabel(c)}</option>`)}
</select>
${error ? html`<p class="field-error">${error.message}</p>` : ""}
<script src="/assets/customer-picker.js" defer></script>`;
}

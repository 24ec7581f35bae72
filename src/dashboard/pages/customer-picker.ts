// The New order page's customer picker (CONTRACT 12, one customer, one record). Without
// JavaScript it is a search form (GET, the page again with what it found) and a select in the
// order form; with it, /assets/customer-picker.js fills the select as the member types, from
// /dashboard/customers/pick. Phone-first: the search looks in phone numbers first, and each
// option shows the phone before the name.

import type { FieldError } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
import type { PickableCustomer } from "../../modules/customers/customer-picker.service.ts";
import { html, type SafeHtml } from "../../web/html.ts";

/** An option's text: phone first, then name and e-mail. */
export function pickerLabel(c: PickableCustomer): string {
  return [c.phone, c.name, c.email].filter((v) => v).join(" · ");
}

// `t` is the page's translator; English until the New order page passes its own (pageCtx.t).

/** The search form, outside the order form (forms do not nest). */
export function customerSearchForm(
  find: string | undefined,
  found: number | undefined,
  t: Translator,
): SafeHtml {
  const k = (key: string, values?: Record<string, number>) =>
    t.t(`dashboard.customers.picker.${key}`, values);
  return html`<form method="get" action="/dashboard/orders/new" class="filter customer-search" role="search">
<label for="customer-find">${k("find")}</label>
<input id="customer-find" name="find" type="search" inputmode="search" maxlength="100" autocomplete="off" value="${find ?? ""}" aria-controls="customerId">
<div class="actions"><button type="submit">${t.t("dashboard.customers.find")}</button></div>
${found === undefined ? "" : html`<p class="muted" id="customer-find-result" role="status">${found === 0 ? k("noMatch") : k("found", { count: found })}</p>`}
</form>`;
}

/** The select inside the order form: a new customer, or one of `options` (`chosen` selected). */
export function customerSelect(
  options: readonly PickableCustomer[],
  chosen: string | undefined,
  errors: readonly FieldError[],
  t: Translator,
): SafeHtml {
  const error = errors.find((e) => e.field === "customerId");
  return html`<label for="customerId">${t.t("dashboard.customers.picker.customer")}</label>
<select id="customerId" name="customerId" data-picker>
<option value="">${t.t("dashboard.customers.picker.newCustomer")}</option>
${options.map((c) => html`<option value="${c.id}"${c.id === chosen ? html` selected` : ""}>${pickerLabel(c)}</option>`)}
</select>
${error ? html`<p class="field-error">${error.message}</p>` : ""}
<script src="/assets/customer-picker.js" defer></script>`;
}

// Settings, owners only (the "settings" hook of its page group): Order dates and risk
// (/dashboard/settings/order-dates, CONTRACT 12). The lead time of each order type, in days or
// weeks, and the wedding-date risk rules as sentences, "At risk when not <status> <n> days before
// the wedding": the saved rules with a remove box each, and a few blank rows to add one (no
// script). Refused input is the form again (400) with each field's problem beside it in the
// reader's language, the values kept; a save or a reset is a 303 with a flash. What may be saved
// and what a save does to the shop's orders: modules/orders/order-date-settings.service.ts.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { FieldError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import {
  getOrderDateSettings,
  type OrderDateSettings,
  type OrderDateSettingsInput,
  type OrderDateSettingsProblem,
  orderDateLimits,
  orderDateSettingsProblems,
  resetOrderDateSettings,
  saveOrderDateSettings,
} from "../modules/orders/order-date-settings.service.ts";
import { defaultLeadDays, riskRuleStatuses } from "../modules/orders/order-dates.ts";
import { type OrderType, orderTypes } from "../modules/orders/orders.workflow.ts";
import { csrfField, sendPage } from "../web/browser-scope.ts";
import { type Form, field } from "../web/form.ts";
import { runAction, saveForm } from "../web/form-actions.ts";
import { html, type SafeHtml } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, type PageContext } from "./layout.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";

const PATH = "/dashboard/settings/order-dates";
const K = "dashboard.orderDates";
/** Blank rows offered to add a rule (while the shop has room for more). */
const BLANK_ROWS = 2;
/** Rows a posted form may carry: the most rules plus the blank ones. */
const MAX_ROWS = orderDateLimits.maxRules + BLANK_ROWS;

type Unit = "days" | "weeks";

/** The form as typed: kept as text, so a refused form shows again exactly as it was sent. */
interface FormState {
  lead: Record<OrderType, { amount: string; unit: Unit }>;
  rows: Array<{ status: string; days: string; remove: boolean }>;
}

function stateOf(settings: OrderDateSettings): FormState {
  const lead = {} as FormState["lead"];
  for (const type of orderTypes) {
    const days = settings.leadDays[type];
    lead[type] =
      days > 0 && days % 7 === 0
        ? { amount: String(days / 7), unit: "weeks" }
        : { amount: String(days), unit: "days" };
  }
  const rows: FormState["rows"] = settings.rules.map((r) => ({
    status: r.status,
    days: String(r.daysBefore),
    remove: false,
  }));
  const blanks = Math.max(0, Math.min(BLANK_ROWS, orderDateLimits.maxRules - rows.length));
  for (let i = 0; i < blanks; i++) rows.push({ status: "", days: "", remove: false });
  return { lead, rows };
}

function readState(form: Form): FormState {
  const lead = {} as FormState["lead"];
  for (const type of orderTypes) {
    const unit = field(form, `leadUnit.${type}`) === "weeks" ? "weeks" : "days";
    lead[type] = { amount: field(form, `leadDays.${type}`).trim(), unit };
  }
  const rows: FormState["rows"] = [];
  for (let i = 0; i < MAX_ROWS; i++) {
    const status = field(form, `rules.${i}.status`);
    const days = field(form, `rules.${i}.daysBefore`).trim();
    if (form[`rules.${i}.status`] === undefined && form[`rules.${i}.daysBefore`] === undefined) break;
    rows.push({ status, days, remove: field(form, `rules.${i}.remove`) === "on" });
  }
  return { lead, rows };
}

const wholeNumber = (text: string) => (/^\d{1,5}$/.test(text) ? Number(text) : Number.NaN);

/** The service's input, and which form row each of its rules came from. */
function inputOf(state: FormState): { input: OrderDateSettingsInput; rowOf: number[] } {
  const leadDays: OrderDateSettingsInput["leadDays"] = {};
  for (const type of orderTypes) {
    const { amount, unit } = state.lead[type];
    // Empty: the default.
    if (amount !== "") leadDays[type] = wholeNumber(amount) * (unit === "weeks" ? 7 : 1);
  }
  const rules: Array<{ status: string; daysBefore: number }> = [];
  const rowOf: number[] = [];
  state.rows.forEach((row, i) => {
    if (row.remove || (row.status === "" && row.days === "")) return;
    rules.push({ status: row.status, daysBefore: wholeNumber(row.days) });
    rowOf.push(i);
  });
  return { input: { leadDays, rules }, rowOf };
}

/** Each problem in the reader's language, its field renamed to the form row it came from. */
function errorsOf(t: Translator, problems: OrderDateSettingsProblem[], rowOf: number[]): FieldError[] {
  return problems.map(({ field: name, problem }) => {
    const row = /^rules\.(\d+)(.*)$/.exec(name);
    const formField = row ? `rules.${rowOf[Number(row[1])] ?? row[1]}${row[2]}` : name;
    const message =
      problem === "leadDays"
        ? t.t(`${K}.errors.leadDays`, {
            days: orderDateLimits.maxLeadDays,
            weeks: Math.floor(orderDateLimits.maxLeadDays / 7),
          })
        : problem === "daysBefore"
          ? t.t(`${K}.errors.daysBefore`, { max: orderDateLimits.maxRuleDays })
          : problem === "tooMany"
            ? t.t(`${K}.errors.tooMany`, { max: orderDateLimits.maxRules })
            : t.t(`${K}.errors.${problem}`);
    return { field: formField, message };
  });
}

export async function orderDateSettingsPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;

  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const settings = await getOrderDateSettings(ctx, vendorIdOf(request));
    return send(reply, 200, page, settings, stateOf(settings), []);
  });

  app.post(PATH, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    if (field(request.body as Form, "action") === "reset") {
      return runAction(reply, { ctx, config }, { done: PATH }, async () => {
        await resetOrderDateSettings(ctx, vendorId);
        return { kind: "success", message: t.t(`${K}.resetDone`) };
      });
    }
    const state = readState(request.body as Form);
    const { input, rowOf } = inputOf(state);
    return saveForm(
      reply,
      config,
      errorsOf(t, orderDateSettingsProblems(input), rowOf),
      async () => {
        await saveOrderDateSettings(ctx, vendorId, input);
        return { message: t.t(`${K}.saved`), location: PATH };
      },
      async (status, errors) =>
        send(reply, status, page, await getOrderDateSettings(ctx, vendorId), state, errors),
    );
  });
}

function send(
  reply: FastifyReply,
  status: number,
  page: PageContext,
  settings: OrderDateSettings,
  state: FormState,
  errors: FieldError[],
): FastifyReply {
  const body = formBody(page, settings, state, errors);
  return sendPage(reply, status, dashboardPage(page, "settings", page.t.t(`${K}.title`), body));
}

const idOf = (name: string) => name.replaceAll(".", "-");

function messagesFor(name: string, errors: readonly FieldError[]): string[] {
  return errors.filter((e) => e.field === name).map((e) => e.message);
}

/** aria-invalid and the id of the field's error text, when it has one. */
function invalid(name: string, errors: readonly FieldError[]): SafeHtml {
  return messagesFor(name, errors).length > 0
    ? html` aria-invalid="true" aria-describedby="${idOf(name)}-error"`
    : html``;
}

function errorText(name: string, errors: readonly FieldError[]): SafeHtml {
  const messages = messagesFor(name, errors);
  return messages.length === 0
    ? html``
    : html`<p class="field-error" id="${idOf(name)}-error">${messages.join(" ")}</p>`;
}

const statusLabel = (t: Translator, status: string) => t.t(`today.status.${status}`);

function leadFieldset(t: Translator, type: OrderType, state: FormState, errors: FieldError[]): SafeHtml {
  const name = `leadDays.${type}`;
  const { amount, unit } = state.lead[type];
  const typeName = t.t(`today.type.${type}`);
  const units: Unit[] = ["days", "weeks"];
  return html`<div class="lead-time" data-type="${type}">
<label for="${idOf(name)}">${typeName}</label>
<div class="inline-controls"><input id="${idOf(name)}" name="${name}" type="number" inputmode="numeric" min="0" max="${orderDateLimits.maxLeadDays}" value="${amount}" class="amount"${invalid(name, errors)}>
<select name="leadUnit.${type}" aria-label="${t.t(`${K}.unitFor`, { type: typeName })}">${units.map((u) => html`<option value="${u}"${u === unit ? html` selected` : ""}>${t.t(`${K}.${u}`)}</option>`)}</select>
<span>${t.t(`${K}.beforeWedding`)}</span></div>
<p class="muted hint">${t.t(`${K}.leadDefault`, { days: defaultLeadDays[type] })}</p>
${errorText(name, errors)}</div>`;
}

/** "At risk when not <status> <n> days before the wedding", the controls where the language puts them. */
function ruleRow(t: Translator, row: FormState["rows"][number], i: number, errors: FieldError[]): SafeHtml {
  const statusName = `rules.${i}.status`;
  const daysName = `rules.${i}.daysBefore`;
  const select = html`<select id="${idOf(statusName)}" name="${statusName}" aria-label="${t.t(`${K}.status`)}"${invalid(statusName, errors)}>
<option value="">${t.t(`${K}.chooseStatus`)}</option>
${riskRuleStatuses.map((s) => html`<option value="${s}"${s === row.status ? html` selected` : ""}>${statusLabel(t, s)}</option>`)}
</select>`;
  const days = html`<input id="${idOf(daysName)}" name="${daysName}" type="number" inputmode="numeric" min="1" max="${orderDateLimits.maxRuleDays}" value="${row.days}" class="amount" aria-label="${t.t(`${K}.daysBefore`)}"${invalid(daysName, errors)}>`;
  // The sentence in the reader's language with two marks where the controls go.
  const sentence = t.t(`${K}.ruleRow`, { status: "\uE000", days: "\uE001" });
  const parts = sentence
    .split(/(\uE000|\uE001)/)
    .map((part) =>
      part === "\uE000"
        ? select
        : part === "\uE001"
          ? days
          : part.trim()
            ? html`<span>${part.trim()}</span>`
            : "",
    );
  const filled = row.status !== "" || row.days !== "";
  return html`<fieldset class="risk-rule" id="${idOf(`rules.${i}`)}" data-row="${i}"><legend>${t.t(`${K}.rule`, { number: i + 1 })}</legend>
<div class="inline-controls">${parts}</div>
${filled ? html`<label class="check"><input type="checkbox" name="rules.${i}.remove" value="on"${row.remove ? html` checked` : ""}> ${t.t(`${K}.remove`)}</label>` : ""}
${errorText(`rules.${i}`, errors)}${errorText(statusName, errors)}${errorText(daysName, errors)}</fieldset>`;
}

/** The refused fields above the form, each by its label and a link to it. */
function errorSummary(t: Translator, errors: FieldError[]): SafeHtml {
  const labelOf = (name: string) => {
    const lead = /^leadDays\.(\w+)$/.exec(name);
    if (lead) return t.t(`today.type.${lead[1]}`);
    const rule = /^rules\.(\d+)/.exec(name);
    return rule ? t.t(`${K}.rule`, { number: Number(rule[1]) + 1 }) : t.t(`${K}.rulesTitle`);
  };
  return html`<div class="field-error" role="alert"><p>${t.t(`${K}.errors.summary`)}</p>
<ul>${errors.map((e) => html`<li><a href="#${idOf(e.field)}">${labelOf(e.field)}</a>: ${e.message}</li>`)}</ul></div>`;
}

function formBody(
  page: PageContext,
  settings: OrderDateSettings,
  state: FormState,
  errors: FieldError[],
): SafeHtml {
  const { t } = page;
  const badge = (custom: boolean) =>
    html` <span class="badge">${custom ? t.t(`${K}.custom`) : t.t(`${K}.standard`)}</span>`;
  return html`<p><a href="/dashboard/settings">${t.t("dashboard.nav.settings")}</a></p>
<p class="muted">${t.t(`${K}.intro`)}</p>
${errors.length > 0 ? errorSummary(t, errors) : ""}
<form method="post" action="${PATH}" class="edit-form order-dates-settings">${csrfField(page.csrf)}
<h2>${t.t(`${K}.leadTitle`)}${badge(settings.customLeadTypes.length > 0)}</h2>
<p class="muted">${t.t(`${K}.leadIntro`)}</p>
${orderTypes.map((type) => leadFieldset(t, type, state, errors))}
<h2>${t.t(`${K}.rulesTitle`)}${badge(settings.customRules)}</h2>
<p class="muted">${t.t(`${K}.rulesIntro`)}</p>
${settings.rules.length === 0 ? html`<p class="muted" data-no-rules>${t.t(`${K}.noRules`)}</p>` : ""}
${errorText("rules", errors)}
${state.rows.map((row, i) => ruleRow(t, row, i, errors))}
<div class="actions"><button type="submit" class="primary" name="action" value="save">${t.t(`${K}.save`)}</button>
<button type="submit" name="action" value="reset" formnovalidate>${t.t(`${K}.reset`)}</button></div>
</form>`;
}

/** The Settings page's way here. */
export function orderDateSettingsLink(t: Translator): SafeHtml {
  return html`<h2>${t.t(`${K}.title`)}</h2>
<p class="muted">${t.t(`${K}.linkHint`)}</p>
<p><a class="button" href="${PATH}">${t.t(`${K}.title`)}</a></p>`;
}

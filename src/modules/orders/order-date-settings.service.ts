// A shop's order-date settings (CONTRACT 12, Dates of an order): the
// lead time of each order type (days before the wedding an order is due when it has no due date
// of its own) and the risk rules. Rules it keeps:
//  - Unset is the default (order-dates.ts); a value equal to its default is stored as unset, so
//    a shop that never chose follows the defaults, and "back to the defaults" clears both.
//  - A lead time is a whole number of days from 0 to MAX_LEAD_DAYS; at most MAX_RISK_RULES rules,
//    each a known status and 1 to MAX_RULE_DAYS days, none twice (assertRiskRules guards the save).
//    No rules at all is a choice too (stored as []): no order is ever at risk.
//  - A save evaluates the shop's open orders under the new rules in its own transaction
//    (evaluateOrderAlerts, bounded to one batch of alerts; the sweep takes any rest), so an order
//    that now misses a rule gets its order.at_risk with the change. Today and the order page read
//    the rules live (shopRulesSql, leadDaysSql): they follow at once.
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { evaluateOrderAlerts } from "./order-alerts.service.ts";
import { findOrderDateSettings, updateOrderDateSettings } from "./order-date-settings.repository.ts";
import {
  assertRiskRules,
  defaultLeadDays,
  defaultRiskRules,
  leadDaysOf,
  MAX_LEAD_DAYS,
  MAX_RISK_RULES,
  MAX_RULE_DAYS,
  type RiskRule,
  riskRuleKey,
  riskRuleStatuses,
  riskRulesOf,
} from "./order-dates.ts";
import { type OrderType, orderTypes } from "./orders.workflow.ts";

export interface OrderDateSettings {
  /** The lead time in days of each order type, the default where the shop set none. */
  leadDays: Record<OrderType, number>;
  /** The types whose lead time the shop set. */
  customLeadTypes: OrderType[];
  /** The risk rules in force: the shop's, else the defaults. */
  rules: RiskRule[];
  /** Whether the shop chose its own rules (possibly none). */
  customRules: boolean;
}

export interface OrderDateSettingsInput {
  /** Days per type; a type left out takes its default. */
  leadDays: Partial<Record<OrderType, number>>;
  rules: ReadonlyArray<{ status: string; daysBefore: number }>;
}

/** What is wrong with a field of the input, for the page to say in the reader's language. */
export type OrderDateProblem = "leadDays" | "status" | "daysBefore" | "duplicate" | "tooMany";

export interface OrderDateSettingsProblem {
  /** `leadDays.<TYPE>`, `rules.<i>.status`, `rules.<i>.daysBefore`, `rules.<i>` or `rules`. */
  field: string;
  problem: OrderDateProblem;
}

export const orderDateLimits = {
  maxLeadDays: MAX_LEAD_DAYS,
  maxRules: MAX_RISK_RULES,
  maxRuleDays: MAX_RULE_DAYS,
} as const;

const englishProblem: Record<OrderDateProblem, string> = {
  leadDays: `must be a whole number of days from 0 to ${MAX_LEAD_DAYS}`,
  status: `must be one of ${riskRuleStatuses.join(", ")}`,
  daysBefore: `must be a whole number from 1 to ${MAX_RULE_DAYS}`,
  duplicate: "is given twice",
  tooMany: `must be at most ${MAX_RISK_RULES}`,
};

export async function getOrderDateSettings(
  ctx: ServiceContext,
  vendorId: string,
): Promise<OrderDateSettings> {
  const row = await findOrderDateSettings(ctx.db, vendorId);
  if (!row) throw notFound("Vendor");
  return {
    leadDays: leadDaysOf(row.leadTimes),
    customLeadTypes: orderTypes.filter((type) => typeof row.leadTimes?.[type] === "number"),
    rules: [...riskRulesOf(row.riskRules)],
    customRules: row.riskRules !== null,
  };
}

/** Every problem of `input`, each naming its field (empty: it may be saved). */
export function orderDateSettingsProblems(input: OrderDateSettingsInput): OrderDateSettingsProblem[] {
  const problems: OrderDateSettingsProblem[] = [];
  for (const type of orderTypes) {
    const days = input.leadDays[type];
    if (days !== undefined && !(Number.isInteger(days) && days >= 0 && days <= MAX_LEAD_DAYS))
      problems.push({ field: `leadDays.${type}`, problem: "leadDays" });
  }
  if (input.rules.length > MAX_RISK_RULES) problems.push({ field: "rules", problem: "tooMany" });
  const seen = new Set<string>();
  input.rules.forEach((rule, i) => {
    const statusOk = (riskRuleStatuses as readonly string[]).includes(rule.status);
    const daysOk =
      Number.isInteger(rule.daysBefore) && rule.daysBefore >= 1 && rule.daysBefore <= MAX_RULE_DAYS;
    if (!statusOk) problems.push({ field: `rules.${i}.status`, problem: "status" });
    if (!daysOk) problems.push({ field: `rules.${i}.daysBefore`, problem: "daysBefore" });
    if (!statusOk || !daysOk) return;
    const key = riskRuleKey(rule as RiskRule);
    if (seen.has(key)) problems.push({ field: `rules.${i}`, problem: "duplicate" });
    seen.add(key);
  });
  return problems;
}

const sameRules = (a: readonly RiskRule[], b: readonly RiskRule[]) =>
  a.length === b.length && a.map(riskRuleKey).sort().join() === b.map(riskRuleKey).sort().join();

/**
 * Saves the shop's lead times and rules and evaluates its open orders under them, in one
 * transaction. Refused (validation_failed, every field named) when orderDateSettingsProblems
 * finds anything. Returns how many alerts the evaluation recorded.
 */
export async function saveOrderDateSettings(
  ctx: ServiceContext,
  vendorId: string,
  input: OrderDateSettingsInput,
): Promise<number> {
  const problems = orderDateSettingsProblems(input);
  if (problems.length > 0) {
    const errors: FieldError[] = problems.map((p) => ({
      field: p.field,
      message: englishProblem[p.problem],
    }));
    throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
      errors,
    });
  }
  const rules = input.rules.map((r) => ({ status: r.status, daysBefore: r.daysBefore }) as RiskRule);
  assertRiskRules(rules);
  const leadTimes: Record<string, number> = {};
  for (const type of orderTypes) {
    const days = input.leadDays[type];
    if (days !== undefined && days !== defaultLeadDays[type]) leadTimes[type] = days;
  }
  return store(ctx, vendorId, {
    leadTimes: Object.keys(leadTimes).length > 0 ? leadTimes : null,
    riskRules: sameRules(rules, defaultRiskRules) ? null : rules,
  });
}

/** Back to the default lead times and rules, the open orders evaluated under them. */
export async function resetOrderDateSettings(ctx: ServiceContext, vendorId: string): Promise<number> {
  return store(ctx, vendorId, { leadTimes: null, riskRules: null });
}

async function store(
  ctx: ServiceContext,
  vendorId: string,
  settings: { leadTimes: Record<string, number> | null; riskRules: RiskRule[] | null },
): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    if (!(await updateOrderDateSettings(tx, vendorId, settings, now))) throw notFound("Vendor");
    await recordActivity(tx, {
      vendorId,
      action: "settings.changed",
      subjectId: null,
      at: now,
      detail: { fields: ["orderDates"] },
    });
    return evaluateOrderAlerts(tx, { vendorId }, now);
  });
}

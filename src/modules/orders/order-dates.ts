// The dates of an order (CONTRACT 12, Dates of an order): the shop's lead times that derive a due
// date from the wedding date, and the wedding-date risk rules. Both are shop settings
// (vendors.lead_times, vendors.risk_rules) with these defaults; the SQL that applies them is in
// order-json.repository.ts (the due date) and order-alerts.repository.ts (risk, overdue).
import { fieldError } from "../../errors.ts";
import { type OrderStatus, type OrderType, orderStatuses, orderTypes } from "./orders.workflow.ts";

/** Days before the wedding each order type is due when the shop set none. */
export const defaultLeadDays: Readonly<Record<OrderType, number>> = {
  BRIDAL_DRESS: 56,
  SUIT: 28,
  RENTAL: 7,
};

export interface RiskRule {
  /** The status the order must have reached… */
  status: OrderStatus;
  /** …by this many days before the customer's wedding. */
  daysBefore: number;
}

/** CONTRACT 12: not FITTING_READY 56 days before the wedding, not READY_FOR_PICKUP 14 days before. */
export const defaultRiskRules: readonly RiskRule[] = [
  { status: "FITTING_READY", daysBefore: 56 },
  { status: "READY_FOR_PICKUP", daysBefore: 14 },
];

/** The statuses a rule may name: those on the way to the customer, in workflow order. */
export const riskRuleStatuses = [
  "IN_PRODUCTION",
  "FITTING_READY",
  "ALTERATIONS",
  "READY_FOR_PICKUP",
] as const;

/**
 * How far along the workflow a status is (orders.workflow.ts): an order has "reached" a status
 * once its rank is at least that status's. ALTERATIONS comes after a fitting, so it has reached
 * FITTING_READY; an order moved straight to READY_FOR_PICKUP has reached both. CANCELLED has no
 * rank: a cancelled order is never at risk.
 */
export const progressOrder: readonly OrderStatus[] = orderStatuses.filter((s) => s !== "CANCELLED");

/** The statuses in which a rental is back (or will not go out): never overdue. */
export const rentalClosedStatuses: readonly OrderStatus[] = ["RETURNED", "COMPLETED", "CANCELLED"];

/** The key an at-risk alert is recorded under: one per rule, whatever else the shop's rules are. */
export const riskRuleKey = (rule: RiskRule) => `at_risk:${rule.status}:${rule.daysBefore}`;

export const MAX_RISK_RULES = 5;
export const MAX_LEAD_DAYS = 730;
/** A rule's reach: from 1 day to a year before the wedding. */
export const MAX_RULE_DAYS = 365;

export function leadDaysOf(leadTimes: Record<string, number> | null | undefined): Record<OrderType, number> {
  const out = { ...defaultLeadDays };
  for (const type of orderTypes) {
    const days = leadTimes?.[type];
    if (typeof days === "number" && Number.isInteger(days)) out[type] = days;
  }
  return out;
}

export function riskRulesOf(rules: ReadonlyArray<{ status: string; daysBefore: number }> | null | undefined) {
  return (rules ?? defaultRiskRules) as readonly RiskRule[];
}

/** A rule set as a shop may save it: known statuses, 1-365 days, no rule twice. */
export function assertRiskRules(rules: readonly RiskRule[], field = "riskRules"): void {
  if (rules.length > MAX_RISK_RULES)
    throw fieldError("validation_failed", field, `at most ${MAX_RISK_RULES} rules`);
  const seen = new Set<string>();
  for (const rule of rules) {
    if (!(riskRuleStatuses as readonly string[]).includes(rule.status))
      throw fieldError("validation_failed", field, `status must be one of ${riskRuleStatuses.join(", ")}`);
    if (!Number.isInteger(rule.daysBefore) || rule.daysBefore < 1 || rule.daysBefore > MAX_RULE_DAYS)
      throw fieldError(
        "validation_failed",
        field,
        `daysBefore must be a whole number from 1 to ${MAX_RULE_DAYS}`,
      );
    if (seen.has(riskRuleKey(rule))) throw fieldError("validation_failed", field, "a rule is given twice");
    seen.add(riskRuleKey(rule));
  }
}

export interface OrderDates {
  dueDate?: string | null | undefined;
  pickupDate?: string | null | undefined;
  dueBackDate?: string | null | undefined;
}

/**
 * The date rules of CONTRACT 12 over the dates an order will have: pickupDate and dueBackDate only
 * for a RENTAL, and dueBackDate not before pickupDate. Problems name the field.
 */
export function assertOrderDates(type: OrderType, dates: OrderDates): void {
  if (type !== "RENTAL") {
    for (const field of ["pickupDate", "dueBackDate"] as const) {
      if (dates[field] !== undefined && dates[field] !== null)
        throw fieldError("validation_failed", field, "is only for RENTAL orders");
    }
    return;
  }
  const { pickupDate, dueBackDate } = dates;
  if (pickupDate && dueBackDate && dueBackDate < pickupDate)
    throw fieldError("validation_failed", "dueBackDate", "must not be before pickupDate");
}

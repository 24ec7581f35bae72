// The order status workflow of CONTRACT 4 as data. A move to the same status is allowed (it adds a
// history entry without changing status); everything not listed here is refused.
import { AppError } from "../../errors.ts";

export const orderTypes = ["BRIDAL_DRESS", "SUIT", "RENTAL"] as const;
export type OrderType = (typeof orderTypes)[number];

export const orderStatuses = [
  "ORDERED",
  "IN_PRODUCTION",
  "FITTING_READY",
  "ALTERATIONS",
  "READY_FOR_PICKUP",
  "PICKED_UP",
  "RETURNED",
  "COMPLETED",
  "CANCELLED",
] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export const orderTransitions: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  ORDERED: ["IN_PRODUCTION", "FITTING_READY", "READY_FOR_PICKUP", "CANCELLED"],
  IN_PRODUCTION: ["FITTING_READY", "READY_FOR_PICKUP", "CANCELLED"],
  FITTING_READY: ["ALTERATIONS", "READY_FOR_PICKUP", "PICKED_UP", "CANCELLED"],
  ALTERATIONS: ["FITTING_READY", "READY_FOR_PICKUP", "CANCELLED"],
  READY_FOR_PICKUP: ["PICKED_UP", "CANCELLED"],
  PICKED_UP: ["RETURNED", "COMPLETED"],
  RETURNED: ["COMPLETED"],
  COMPLETED: [],
  CANCELLED: [],
};

/** Moves that only some order types may make. */
const typeRestricted: Partial<Record<OrderStatus, readonly OrderType[]>> = {
  RETURNED: ["RENTAL"],
};

export function canTransition(type: OrderType, from: OrderStatus, to: OrderStatus): boolean {
  if (from === to) return true;
  if (!orderTransitions[from].includes(to)) return false;
  const only = typeRestricted[to];
  return !only || only.includes(type);
}

/** The statuses an order of `type` may move to from `from` (the dashboard offers only these). */
export function allowedOrderMoves(type: OrderType, from: OrderStatus): OrderStatus[] {
  return orderTransitions[from].filter((to) => canTransition(type, from, to));
}

export function assertOrderTransition(type: OrderType, from: OrderStatus, to: OrderStatus): void {
  if (canTransition(type, from, to)) return;
  const allowed = allowedOrderMoves(type, from);
  throw new AppError(
    "invalid_transition",
    allowed.length > 0
      ? `A ${type} order cannot move from ${from} to ${to}; allowed: ${allowed.join(", ")}`
      : `${from} is final: the order cannot move to ${to}`,
    { currentStatus: from, allowedStatuses: allowed },
  );
}

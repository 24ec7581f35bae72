import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.ts";
import {
  allowedOrderMoves,
  assertOrderTransition,
  canTransition,
  orderStatuses,
  orderTransitions,
  orderTypes,
} from "../../src/modules/orders/orders.workflow.ts";

// CONTRACT 4, restated independently of the implementation's table.
const allowed: Record<string, string[]> = {
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

describe("order workflow (CONTRACT 4)", () => {
  it("the table lists exactly the contract's moves", () => {
    expect(orderTransitions).toEqual(allowed);
  });

  for (const type of orderTypes) {
    for (const from of orderStatuses) {
      for (const to of orderStatuses) {
        const expected =
          from === to || (allowed[from]?.includes(to) === true && (to !== "RETURNED" || type === "RENTAL"));
        it(`${type}: ${from} → ${to} is ${expected ? "allowed" : "refused"}`, () => {
          expect(canTransition(type, from, to)).toBe(expected);
          // The moves the dashboard offers are exactly the allowed ones (staying put is not a move).
          expect(allowedOrderMoves(type, from).includes(to)).toBe(expected && from !== to);
          if (expected) {
            expect(() => assertOrderTransition(type, from, to)).not.toThrow();
          } else {
            try {
              assertOrderTransition(type, from, to);
              expect.unreachable();
            } catch (err) {
              expect(err).toBeInstanceOf(AppError);
              expect((err as AppError).code).toBe("invalid_transition");
              expect((err as AppError).status).toBe(409);
            }
          }
        });
      }
    }
  }
});

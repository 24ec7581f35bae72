// Spec 3.1 as a table, checked exhaustively: every (from, to) pair, allowed or refused.
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.ts";
import {
  type AppointmentStatus,
  allowedAppointmentMoves,
  appointmentStatuses,
  assertAppointmentTransition,
  assertDeletable,
  canTransition,
} from "../../src/modules/appointments/appointments.workflow.ts";

const allowed = new Set([
  "PROPOSED>CONFIRMED",
  "PROPOSED>CANCELLED",
  "CONFIRMED>COMPLETED",
  "CONFIRMED>CANCELLED",
]);

describe("appointment transitions (spec 3.1)", () => {
  for (const from of appointmentStatuses) {
    for (const to of appointmentStatuses) {
      if (from === to) {
        it(`${from} → ${to} is not a move: accepted, changes nothing`, () => {
          expect(canTransition(from, to)).toBe(true);
          expect(allowedAppointmentMoves(from)).not.toContain(to);
        });
        continue;
      }
      const ok = allowed.has(`${from}>${to}`);
      it(`${from} → ${to} is ${ok ? "allowed" : "refused with invalid_transition"}`, () => {
        expect(canTransition(from, to)).toBe(ok);
        // The dashboard's buttons come from this list.
        expect(allowedAppointmentMoves(from).includes(to)).toBe(ok);
        if (ok) {
          expect(() => assertAppointmentTransition(from, to)).not.toThrow();
        } else {
          let error: unknown;
          try {
            assertAppointmentTransition(from, to);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe("invalid_transition");
          expect((error as AppError).status).toBe(409);
        }
      });
    }
  }
});

describe("appointment deletion (spec 3.1 rule 2)", () => {
  const deletable: AppointmentStatus[] = ["PROPOSED", "CANCELLED"];
  for (const status of appointmentStatuses) {
    const ok = deletable.includes(status);
    it(`${status} is ${ok ? "deletable" : "not deletable (appointment_not_deletable)"}`, () => {
      if (ok) expect(() => assertDeletable(status)).not.toThrow();
      else
        expect(() => assertDeletable(status)).toThrow(
          expect.objectContaining({ code: "appointment_not_deletable" }),
        );
    });
  }
});

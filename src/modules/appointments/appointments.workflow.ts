// The appointment status workflow of spec 3.1 as data. Everything not listed is refused.
// Sending the current status again (a PUT that repeats the whole object) is not a move: it
// changes nothing and emits no event.
import { AppError } from "../../errors.ts";

export const appointmentTypes = ["CONSULTATION", "FITTING", "PICKUP"] as const;
export type AppointmentType = (typeof appointmentTypes)[number];

export const appointmentStatuses = ["PROPOSED", "CONFIRMED", "COMPLETED", "CANCELLED"] as const;
export type AppointmentStatus = (typeof appointmentStatuses)[number];

export const appointmentTransitions: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  PROPOSED: ["CONFIRMED", "CANCELLED"],
  CONFIRMED: ["COMPLETED", "CANCELLED"],
  COMPLETED: [],
  CANCELLED: [],
};

/** Spec 3.1 rule 2: only these may be deleted. */
export const deletableStatuses: readonly AppointmentStatus[] = ["PROPOSED", "CANCELLED"];

export function canTransition(from: AppointmentStatus, to: AppointmentStatus): boolean {
  return from === to || appointmentTransitions[from].includes(to);
}

/** The statuses an appointment may move to from `from` (the dashboard offers only these). */
export function allowedAppointmentMoves(from: AppointmentStatus): AppointmentStatus[] {
  return [...appointmentTransitions[from]];
}

export function assertAppointmentTransition(from: AppointmentStatus, to: AppointmentStatus): void {
  if (canTransition(from, to)) return;
  const allowed = allowedAppointmentMoves(from);
  throw new AppError(
    "invalid_transition",
    allowed.length > 0
      ? `An appointment cannot move from ${from} to ${to}; allowed: ${allowed.join(", ")}`
      : `${from} is final: the appointment cannot move to ${to}`,
    { currentStatus: from, allowedStatuses: allowed },
  );
}

export function assertDeletable(status: AppointmentStatus): void {
  if (deletableStatuses.includes(status)) return;
  throw new AppError(
    "appointment_not_deletable",
    `An appointment can be deleted only when ${deletableStatuses.join(" or ")}; this one is ${status}`,
    { currentStatus: status },
  );
}

import type { AppointmentRow } from "./appointments.repository.ts";
import type { AppointmentStatus, AppointmentType } from "./appointments.workflow.ts";

/** The one place an appointment row becomes JSON (API responses and webhook payloads). */
export function presentAppointment(row: AppointmentRow) {
  return {
    id: row.id,
    customerId: row.customerId,
    orderId: row.orderId,
    type: row.type as AppointmentType,
    status: row.status as AppointmentStatus,
    date: row.date.toISOString(),
    duration: row.duration,
    notes: row.notes,
    externalId: row.externalId,
    metadata: row.metadata ?? {},
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type AppointmentJson = ReturnType<typeof presentAppointment>;

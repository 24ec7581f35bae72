import { and, eq, gt, inArray, lt, ne } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { appointments } from "../../db/schema/index.ts";

export interface BusyAppointment {
  date: Date;
  duration: number;
  type: string;
}

/**
 * The shop's PROPOSED and CONFIRMED appointments starting after `after` and before `before`, in
 * one statement on appointments_vendor_date_idx (vendor_id, date): the caller widens `after` by
 * the longest an appointment can last so one that began earlier and still runs is included.
 */
export async function listBusyAppointments(
  db: Executor,
  vendorId: string,
  after: Date,
  before: Date,
  excludeId?: string,
): Promise<BusyAppointment[]> {
  const conditions = [
    eq(appointments.vendorId, vendorId),
    gt(appointments.date, after),
    lt(appointments.date, before),
    inArray(appointments.status, ["PROPOSED", "CONFIRMED"]),
  ];
  if (excludeId) conditions.push(ne(appointments.id, excludeId));
  return db
    .select({ date: appointments.date, duration: appointments.duration, type: appointments.type })
    .from(appointments)
    .where(and(...conditions));
}

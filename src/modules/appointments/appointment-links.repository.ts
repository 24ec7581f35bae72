// The customer's own links to an appointment (db/schema/appointments.ts `appointmentLinks`):
// written beside each appointment mail, found by the token's hash. A link leads to its
// appointment only while the appointment still belongs to the customer it was mailed to.
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { appointmentLinks, appointments, customers, vendors } from "../../db/schema/index.ts";
import type { AppointmentRow } from "./appointments.repository.ts";

export async function insertAppointmentLink(
  db: Executor,
  link: { tokenHash: string; appointmentId: string; vendorId: string; customerId: string; at: Date },
): Promise<void> {
  await db.insert(appointmentLinks).values({
    tokenHash: link.tokenHash,
    appointmentId: link.appointmentId,
    vendorId: link.vendorId,
    customerId: link.customerId,
    createdAt: link.at,
  });
}

export interface LinkedAppointment {
  appointment: AppointmentRow;
  shop: { name: string; timeZone: string; language: string; address: string | null };
  customer: { name: string; language: string | null };
}

/**
 * The appointment a link's token hash leads to, with its shop and customer, or undefined (no such
 * link, or the appointment moved to another customer by a merge). `lock` locks the appointment
 * until the transaction ends, as a change through the link needs.
 */
export async function findLinkedAppointment(
  db: Executor,
  tokenHash: string,
  lock = false,
): Promise<LinkedAppointment | undefined> {
  const query = db
    .select({
      appointment: appointments,
      shop: {
        name: vendors.name,
        timeZone: vendors.timeZone,
        language: vendors.language,
        address: vendors.address,
      },
      customer: { name: customers.name, language: customers.language },
    })
    .from(appointmentLinks)
    .innerJoin(
      appointments,
      and(
        eq(appointments.id, appointmentLinks.appointmentId),
        eq(appointments.vendorId, appointmentLinks.vendorId),
        eq(appointments.customerId, appointmentLinks.customerId),
      ),
    )
    .innerJoin(vendors, eq(vendors.id, appointments.vendorId))
    .innerJoin(customers, eq(customers.id, appointments.customerId))
    .where(eq(appointmentLinks.tokenHash, tokenHash))
    .limit(1);
  const [row] = lock ? await query.for("update", { of: appointments }) : await query;
  return row;
}

/** Records the start the customer was last told of by mail (a cancellation names it). */
export async function setToldDate(db: Executor, vendorId: string, id: string, date: Date): Promise<void> {
  await db
    .update(appointments)
    .set({ toldDate: date })
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.id, id)));
}

/**
 * Serialises the changes that take a place in the shop's calendar (a move by the customer, a
 * public booking) until the transaction ends: the shop's row, locked (SELECT … FOR UPDATE), the
 * same lock a public booking takes, so the free-start check and the write that takes the place
 * are one step for every process.
 */
export async function lockVendorBookings(db: Executor, vendorId: string): Promise<void> {
  await db.select({ id: vendors.id }).from(vendors).where(eq(vendors.id, vendorId)).for("update");
}

// The writes of a merge (customer-merge.service.ts): what belonged to the customer that goes is
// handed to the one that stays. Records that change get a new updated_at (never backwards), so
// an `updatedSince` sync sees their new customerId.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { appointments, inquiries, mails, orders } from "../../db/schema/index.ts";

const later = (column: unknown, now: Date) =>
  sql`greatest(${now.toISOString()}::timestamptz, ${column} + interval '1 millisecond')`;

/** Moves the orders, appointments and mails of customer `from` to customer `to`. */
export async function moveCustomerRecords(
  db: Executor,
  vendorId: string,
  from: string,
  to: string,
  now: Date,
): Promise<{ orders: number; appointments: number }> {
  const movedOrders = await db
    .update(orders)
    .set({ customerId: to, updatedAt: later(orders.updatedAt, now) })
    .where(and(eq(orders.vendorId, vendorId), eq(orders.customerId, from)))
    .returning({ id: orders.id });
  const movedAppointments = await db
    .update(appointments)
    .set({ customerId: to, updatedAt: later(appointments.updatedAt, now) })
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.customerId, from)))
    .returning({ id: appointments.id });
  await db
    .update(mails)
    .set({ customerId: to })
    .where(and(eq(mails.vendorId, vendorId), eq(mails.customerId, from)));
  return { orders: movedOrders.length, appointments: movedAppointments.length };
}

/**
 * Inquiries carry no customer id: they are a customer's by e-mail (customer-erasure.repository.ts).
 * Those sent from `emails` (the customer that goes) are given `email`, the kept customer's, so
 * they stay with her, and go with her on erasure.
 */
export async function moveInquiriesToEmail(
  db: Executor,
  vendorId: string,
  emails: readonly string[],
  email: string,
): Promise<number> {
  if (emails.length === 0) return 0;
  const moved = await db
    .update(inquiries)
    .set({ email })
    .where(and(eq(inquiries.vendorId, vendorId), inArray(sql`lower(${inquiries.email})`, [...emails])))
    .returning({ id: inquiries.id });
  return moved.length;
}

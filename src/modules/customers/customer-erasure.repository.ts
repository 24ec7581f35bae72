// Erasure on the customer's request (CONTRACT 5, GDPR art. 17) reaches past the customers table:
// the customer's appointments, the inquiries sent from their e-mail, and the event payloads
// stored in the outbox. The statements live together so one file shows everything erased.
import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { appointments, customers, events, inquiries } from "../../db/schema/index.ts";

export interface ErasedCustomer {
  id: string;
  email: string | null;
}

export async function deleteCustomerAppointments(db: Executor, vendorId: string, customerId: string) {
  await db
    .delete(appointments)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.customerId, customerId)));
}

/** Inquiries carry no customer id: the ones sent from the customer's e-mail (any case) are theirs. */
export async function deleteCustomerInquiries(db: Executor, vendorId: string, email: string) {
  await db
    .delete(inquiries)
    .where(and(eq(inquiries.vendorId, vendorId), sql`lower(${inquiries.email}) = lower(${email})`));
}

/**
 * Stored payloads: events about the customer, their appointments and their inquiries are deleted
 * (with their pending deliveries, so nothing about them is sent afterwards); order events stay,
 * like the orders, with the customer taken out.
 */
export async function eraseCustomerFromEvents(db: Executor, vendorId: string, customer: ErasedCustomer) {
  const about = [
    sql`(${events.type} like 'customer.%' and ${events.data}->>'id' = ${customer.id})`,
    sql`(${events.type} like 'appointment.%' and ${events.data}->>'customerId' = ${customer.id})`,
  ];
  if (customer.email) {
    about.push(
      sql`(${events.type} = 'inquiry.received' and lower(${events.data}->>'email') = lower(${customer.email}))`,
    );
  }
  await db.delete(events).where(and(eq(events.vendorId, vendorId), sql`(${sql.join(about, sql` or `)})`));
  await db
    .update(events)
    .set({
      data: sql`case when ${events.data} ? 'customer'
        then ${events.data} || '{"customerId":null,"customer":null}'::jsonb
        else ${events.data} || '{"customerId":null}'::jsonb end`,
    })
    .where(
      and(
        eq(events.vendorId, vendorId),
        sql`${events.type} like 'order.%'`,
        sql`${events.data}->>'customerId' = ${customer.id}`,
      ),
    );
}

export async function deleteCustomerRow(db: Executor, vendorId: string, id: string) {
  await db.delete(customers).where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)));
}

// Erasure on the customer's request (CONTRACT 5, GDPR art. 17) reaches every copy: the customer's
// appointments, the inquiries sent from any e-mail they had, the event payloads stored in the
// outbox, the webhook attempt logs (a receiver's answer may echo a payload), and the stored
// Idempotency-Key answers that hold them (a retry with the key would replay the erased customer).
// The statements live together so one file shows everything erased.
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import {
  appointments,
  customers,
  events,
  idempotencyKeys,
  inquiries,
  webhookAttempts,
  webhookDeliveries,
} from "../../db/schema/index.ts";

export interface ErasedCustomer {
  id: string;
  email: string | null;
}

/** Deletes the customer's appointments; returns their ids (each leaves a tombstone and an event). */
export async function deleteCustomerAppointments(
  db: Executor,
  vendorId: string,
  customerId: string,
): Promise<string[]> {
  const gone = await db
    .delete(appointments)
    .where(and(eq(appointments.vendorId, vendorId), eq(appointments.customerId, customerId)))
    .returning({ id: appointments.id });
  return gone.map((a) => a.id);
}

/**
 * Every e-mail the customer had, lower-cased: the current one and the earlier ones their stored
 * customer.created / customer.updated payloads hold (read before those events are deleted).
 */
export async function customerEmails(
  db: Executor,
  vendorId: string,
  customer: ErasedCustomer,
): Promise<string[]> {
  const rows = await queryRows<{ email: string }>(
    db,
    sql`select distinct lower(${events.data}->>'email') as email from ${events}
        where ${events.vendorId} = ${vendorId} and ${events.type} like 'customer.%'
          and ${events.data}->>'id' = ${customer.id} and ${events.data}->>'email' is not null`,
  );
  const emails = new Set(rows.map((r) => r.email));
  if (customer.email) emails.add(customer.email.toLowerCase());
  return [...emails];
}

/** Inquiries carry no customer id: the ones sent from any of the customer's e-mails (any case) are theirs. */
export async function deleteCustomerInquiries(db: Executor, vendorId: string, emails: readonly string[]) {
  if (emails.length === 0) return;
  await db
    .delete(inquiries)
    .where(and(eq(inquiries.vendorId, vendorId), inArray(sql`lower(${inquiries.email})`, [...emails])));
}

/** A text column holding any of `values` (their id, e-mails, name, phone), in any case. */
const holdsAny = (column: unknown, values: readonly string[]) =>
  or(...values.map((v) => sql`strpos(lower(${column}), ${v.toLowerCase()}) > 0`));

/**
 * Stored Idempotency-Key answers that hold the customer go: a retry with the key is then a new
 * request, instead of a replay of the erased customer (for 24 h it answered 201 with her data).
 */
export async function deleteIdempotentAnswersAbout(
  db: Executor,
  vendorId: string,
  values: readonly string[],
) {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.vendorId, vendorId), holdsAny(idempotencyKeys.responseBody, values)));
}

/**
 * Attempt logs keep the first KiB of each receiver's answer and the error, which may echo the
 * payload: those that hold the customer are blanked (the attempt itself, its status and timing
 * stay in the delivery's history).
 */
export async function eraseFromAttemptLogs(db: Executor, vendorId: string, values: readonly string[]) {
  const ofVendor = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.vendorId, vendorId));
  await db
    .update(webhookAttempts)
    .set({
      responseBody: null,
      error: sql`case when ${webhookAttempts.error} is null then null else 'erased' end`,
    })
    .where(
      and(
        inArray(webhookAttempts.deliveryId, ofVendor),
        or(holdsAny(webhookAttempts.responseBody, values), holdsAny(webhookAttempts.error, values)),
      ),
    );
}

/**
 * Stored payloads: events about the customer, their appointments and their inquiries are deleted
 * (with their pending deliveries, so nothing about them is sent afterwards); order events stay,
 * like the orders, with the customer taken out.
 */
export async function eraseCustomerFromEvents(
  db: Executor,
  vendorId: string,
  customer: { id: string; emails: readonly string[] },
) {
  const about = [
    sql`(${events.type} like 'customer.%' and ${events.data}->>'id' = ${customer.id})`,
    sql`(${events.type} like 'appointment.%' and ${events.data}->>'customerId' = ${customer.id})`,
  ];
  if (customer.emails.length > 0) {
    about.push(
      sql`(${events.type} = 'inquiry.received' and ${inArray(sql`lower(${events.data}->>'email')`, [...customer.emails])})`,
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

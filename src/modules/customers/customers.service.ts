import type { Tx } from "../../db/client.ts";
import { enqueueEvent } from "../../events/enqueue.ts";
import { newId } from "../../lib/ids.ts";
import { presentCustomer } from "./customers.presenter.ts";
import {
  type CustomerRow,
  findCustomerByEmail,
  insertCustomerUnlessEmailTaken,
} from "./customers.repository.ts";

export interface CustomerContact {
  name: string;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  weddingDate?: string | null | undefined;
}

/**
 * The vendor's customer with this e-mail (any case), or a new one made from `contact`
 * (emitting customer.created). Safe against a concurrent insert of the same e-mail: the unique
 * index decides, and the loser links to the winner's row.
 */
export async function findOrCreateCustomer(
  tx: Tx,
  vendorId: string,
  contact: CustomerContact,
  now: Date,
): Promise<CustomerRow> {
  if (contact.email) {
    const existing = await findCustomerByEmail(tx, vendorId, contact.email);
    if (existing) return existing;
  }
  const inserted = await insertCustomerUnlessEmailTaken(tx, {
    id: newId(),
    vendorId,
    name: contact.name,
    email: contact.email ?? null,
    phone: contact.phone ?? null,
    weddingDate: contact.weddingDate ?? null,
    createdAt: now,
    updatedAt: now,
  });
  if (!inserted) {
    // Lost a race with a concurrent insert of the same e-mail: link to the winner.
    const winner = contact.email ? await findCustomerByEmail(tx, vendorId, contact.email) : undefined;
    if (!winner) throw new Error("customer insert conflicted but no customer has the e-mail");
    return winner;
  }
  await enqueueEvent(tx, {
    vendorId,
    type: "customer.created",
    data: presentCustomer(inserted),
    createdAt: now,
  });
  return inserted;
}

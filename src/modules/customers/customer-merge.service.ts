// Merging two records of one person (CONTRACT 12): `POST /customers/{id}/merge { from }`.
//
// - The customer `id` stays; `from` goes. Both must be the shop's (404 otherwise, as for any id
//   of another shop); a customer cannot be merged with itself (validation_failed naming `from`).
// - Her orders, appointments, mails and inquiries (these by e-mail) move to the kept customer.
// - The richer field of each pair is kept: for name, e-mail, phone, wedding date and notes the
//   kept customer's value unless it is empty (null or blank), then the other's; measurements and
//   preferences are joined key by key, the kept customer's value winning on a shared key. An
//   unsubscribe from the shop's mail, by either, stays (the earlier one).
// - One transaction: `customer.updated` for the kept one, `customer.deleted` with
//   `data.mergedInto` for the other, and one activity entry (customer.merged) naming both ids.
import type { ServiceContext } from "../../context.ts";
import { fieldError, notFound } from "../../errors.ts";
import { isId } from "../../lib/ids.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { recordDeletion } from "../sync/record-deletion.repository.ts";
import { customerEmails, deleteCustomerRow } from "./customer-erasure.repository.ts";
import { moveCustomerRecords, moveInquiriesToEmail } from "./customer-merge.repository.ts";
import { presentCustomer } from "./customers.presenter.ts";
import {
  type CustomerCounts,
  type CustomerRow,
  findCustomerForUpdate,
  updateCustomerRow,
} from "./customers.repository.ts";
import { getCustomer } from "./customers.service.ts";

const empty = (value: unknown) =>
  value === null || value === undefined || (typeof value === "string" && value.trim() === "");

const richer = <T>(kept: T, other: T): T => (empty(kept) ? other : kept);

const joined = (kept: Record<string, unknown> | null, other: Record<string, unknown> | null) =>
  kept === null && other === null ? null : { ...(other ?? {}), ...(kept ?? {}) };

const earlier = (a: Date | null, b: Date | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/** The kept customer's fields after the merge (the rule above). */
export function mergedFields(kept: CustomerRow, other: CustomerRow): Partial<CustomerRow> {
  const phoneFromOther = empty(kept.phone);
  return {
    name: richer(kept.name, other.name),
    email: richer(kept.email, other.email),
    phone: phoneFromOther ? other.phone : kept.phone,
    phoneE164: phoneFromOther ? other.phoneE164 : kept.phoneE164,
    weddingDate: richer(kept.weddingDate, other.weddingDate),
    notes: richer(kept.notes, other.notes),
    measurements: joined(kept.measurements, other.measurements),
    preferences: joined(kept.preferences, other.preferences),
    mailUnsubscribedAt: earlier(kept.mailUnsubscribedAt, other.mailUnsubscribedAt),
  };
}

/** Merges customer `fromId` into `id` and answers the kept customer, as retrieve does. */
export async function mergeCustomers(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  fromId: string,
): Promise<ReturnType<typeof presentCustomer> & { counts: CustomerCounts }> {
  if (!isId(id)) throw notFound("Customer");
  if (fromId === id)
    throw fieldError("validation_failed", "from", "must name another customer than the one kept");
  await ctx.db.transaction(async (tx) => {
    // Stamped inside the transaction, so no row is older than it (lossless sync, README).
    const now = ctx.now();
    if (!isId(fromId)) throw notFound("Customer");
    // Both rows locked in id order, so two merges of the same pair cannot wait on each other.
    const [first, second] = id < fromId ? [id, fromId] : [fromId, id];
    const a = await findCustomerForUpdate(tx, vendorId, first);
    const b = await findCustomerForUpdate(tx, vendorId, second);
    const kept = a?.id === id ? a : b;
    const other = a?.id === fromId ? a : b;
    if (!kept || !other || kept.id !== id || other.id !== fromId) throw notFound("Customer");
    const moved = await moveCustomerRecords(tx, vendorId, other.id, kept.id, now);
    const fields = mergedFields(kept, other);
    const otherEmails = await customerEmails(tx, vendorId, { id: other.id, email: other.email });
    // The other goes first: the kept customer may take her e-mail, unique per shop.
    await deleteCustomerRow(tx, vendorId, other.id);
    const at = now > kept.updatedAt ? now : new Date(kept.updatedAt.getTime() + 1);
    // A POS that polls sees her go (CONTRACT 12, Deletions): a tombstone beside the kept row.
    await recordDeletion(tx, { vendorId, resource: "customers", id: other.id, at });
    const updated = await updateCustomerRow(tx, vendorId, kept.id, { ...fields, updatedAt: at });
    const inquiries = updated.email
      ? await moveInquiriesToEmail(tx, vendorId, otherEmails, updated.email)
      : 0;
    await enqueueEvent(tx, {
      vendorId,
      type: "customer.updated",
      data: presentCustomer(updated),
      createdAt: at,
    });
    await enqueueEvent(tx, {
      vendorId,
      type: "customer.deleted",
      data: { id: other.id, mergedInto: kept.id },
      createdAt: at,
    });
    await recordActivity(tx, {
      vendorId,
      action: "customer.merged",
      subjectId: kept.id,
      at,
      // Ids and counts only: names and e-mails are hers (activity.repository.ts).
      detail: { from: other.id, orders: moved.orders, appointments: moved.appointments, inquiries },
    });
  });
  return getCustomer(ctx, vendorId, id);
}

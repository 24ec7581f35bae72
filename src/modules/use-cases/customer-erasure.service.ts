// Erasure on the customer's request (CONTRACT 5) reaches every module that holds something of
// hers: her appointments, inquiries and events (customer-erasure.repository.ts), her orders'
// photos (photos/) and the orders themselves, which stay without her (orders/).
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { isId } from "../../lib/ids.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordErasure } from "../activity/activity.repository.ts";
import {
  customerEmails,
  deleteCustomerAppointments,
  deleteCustomerInquiries,
  deleteCustomerRow,
  deleteIdempotentAnswersAbout,
  eraseCustomerFromEvents,
  eraseFromAttemptLogs,
} from "../customers/customer-erasure.repository.ts";
import { findCustomerForUpdate } from "../customers/customers.repository.ts";
import { detachOrdersFromCustomer } from "../orders/orders.repository.ts";
import { deletePhotosOfCustomer } from "../photos/photos.repository.ts";
import { deleteRecordedBlobsLater, photoBlobKeys } from "../photos/photos.service.ts";
import { recordDeletion } from "../sync/record-deletion.repository.ts";

/**
 * Erasure on the customer's request (CONTRACT 5): the customer, their appointments, the inquiries
 * sent from their e-mail, every stored event payload about them and her orders' photos (rows and
 * blobs) are gone; their orders stay for the shop's books with no customer. One transaction, so
 * an erasure is never half done; the photos' blobs are deleted from the store after it commits.
 */
export async function eraseCustomer(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id)) throw notFound("Customer");
  // Her orders' photos (CONTRACT 12) go from the store too, after the rows' deletion commits.
  const blobKeys = await ctx.db.transaction(async (tx) => {
    // Stamped inside the transaction, so no row is older than it (lossless sync, README).
    const now = ctx.now();
    const customer = await findCustomerForUpdate(tx, vendorId, id);
    if (!customer) throw notFound("Customer");
    const emails = await customerEmails(tx, vendorId, { id, email: customer.email });
    // What marks a copy as hers: her id (every JSON about her carries it) and her e-mails. Not
    // her name: a short one would match unrelated text.
    const values = [id, ...emails];
    const appointmentIds = await deleteCustomerAppointments(tx, vendorId, id);
    await deleteCustomerInquiries(tx, vendorId, emails);
    await deleteIdempotentAnswersAbout(tx, vendorId, values);
    await eraseFromAttemptLogs(tx, vendorId, values);
    // Her orders' photos, while the orders still name her (the blobs are recorded for deletion).
    const photoKeys = await deletePhotosOfCustomer(tx, vendorId, id, photoBlobKeys);
    // The orders change (their customer goes), so an updatedSince sync must see them again.
    await detachOrdersFromCustomer(tx, vendorId, id, now);
    await eraseCustomerFromEvents(tx, vendorId, { id, emails });
    await deleteCustomerRow(tx, vendorId, id);
    await enqueueEvent(tx, { vendorId, type: "customer.deleted", data: { id }, createdAt: now });
    // A client that syncs by polling or listens learns what went (CONTRACT 12, Deletions). The
    // appointment events carry only ids, so they hold nothing of hers.
    for (const appointmentId of appointmentIds) {
      await enqueueEvent(tx, {
        vendorId,
        type: "appointment.deleted",
        data: { id: appointmentId },
        createdAt: now,
      });
    }
    await recordDeletion(tx, { vendorId, resource: "customers", id, at: now });
    await recordDeletion(tx, { vendorId, resource: "appointments", id: appointmentIds, at: now });
    // The log keeps what was done to her, not her id (no entry names her name or e-mail).
    await recordErasure(tx, { vendorId, action: "customer.erased", subjectId: null, at: now, erasedId: id });
    return photoKeys;
  });
  await deleteRecordedBlobsLater(ctx, blobKeys);
}

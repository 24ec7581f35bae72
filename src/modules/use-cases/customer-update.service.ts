// A customer's change that reaches her orders: a new wedding date re-evaluates their alerts
// (CONTRACT 12) in the same transaction, so customers/ need not import orders/.
import type { ServiceContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { notFound } from "../../errors.ts";
import { externalIdTaken } from "../../lib/external-ids.ts";
import { isId } from "../../lib/ids.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { type CustomerJson, presentCustomer } from "../customers/customers.presenter.ts";
import {
  type CustomerCounts,
  type CustomerRow,
  findCustomerByEmail,
  findCustomerByExternalId,
  findCustomerForUpdate,
  updateCustomerRow,
} from "../customers/customers.repository.ts";
import type { UpdateCustomerBody } from "../customers/customers.schemas.ts";
import { assertBounds, emailTaken, getCustomer } from "../customers/customers.service.ts";
import { evaluateOrderAlerts } from "../orders/order-alerts.service.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";

/**
 * PATCH and PUT alike (CONTRACT 1): fields left out are unchanged, null clears an optional field.
 * Answers the customer with its counts, as retrieve does.
 */
export async function updateCustomer(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateCustomerBody,
): Promise<CustomerJson & { counts: CustomerCounts }> {
  if (!isId(id)) throw notFound("Customer");
  assertBounds(input);
  try {
    await ctx.db.transaction(async (tx) => {
      // Stamped inside the transaction, so no row is older than it (lossless sync, README).
      const now = ctx.now();
      const current = await findCustomerForUpdate(tx, vendorId, id);
      if (!current) throw notFound("Customer");
      if (input.email && input.email.toLowerCase() !== current.email?.toLowerCase()) {
        const other = await findCustomerByEmail(tx, vendorId, input.email);
        if (other && other.id !== id) throw emailTaken(other.id);
      }
      if (input.externalId && input.externalId !== current.externalId) {
        const other = await findCustomerByExternalId(tx, vendorId, input.externalId);
        if (other && other.id !== id) throw externalIdTaken("customer", other.id);
      }
      const changes: Partial<CustomerRow> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.email !== undefined) changes.email = input.email;
      if (input.phone !== undefined) {
        changes.phone = input.phone;
        changes.phoneE164 = await shopPhoneE164(tx, vendorId, input.phone);
      }
      if (input.weddingDate !== undefined) changes.weddingDate = input.weddingDate;
      if (input.language !== undefined) changes.language = input.language;
      if (input.notes !== undefined) changes.notes = input.notes;
      if (input.measurements !== undefined) changes.measurements = input.measurements;
      if (input.preferences !== undefined) changes.preferences = input.preferences;
      if (input.externalId !== undefined) changes.externalId = input.externalId;
      if (input.metadata !== undefined) changes.metadata = input.metadata;
      // updated_at never moves backwards, even if clocks of two processes disagree.
      changes.updatedAt = now > current.updatedAt ? now : new Date(current.updatedAt.getTime() + 1);
      const updated = await updateCustomerRow(tx, vendorId, id, changes);
      await recordActivity(tx, {
        vendorId,
        action: "customer.updated",
        subjectId: id,
        at: changes.updatedAt,
        // The fields' names only: their values may be hers (activity.repository.ts).
        detail: { fields: Object.keys(changes).filter((f) => f !== "updatedAt") },
      });
      const data = presentCustomer(updated);
      await enqueueEvent(tx, { vendorId, type: "customer.updated", data, createdAt: changes.updatedAt });
      // A new wedding date may put her orders at risk now (CONTRACT 12): in this transaction, once.
      if (changes.weddingDate !== undefined && changes.weddingDate !== current.weddingDate)
        await evaluateOrderAlerts(tx, { vendorId, customerId: id }, now);
    });
  } catch (error) {
    // A concurrent write took the e-mail or the externalId between our check and our update:
    // the index decides.
    if (isUniqueViolation(error) && input.email) {
      const other = await findCustomerByEmail(ctx.db, vendorId, input.email);
      if (other && other.id !== id) throw emailTaken(other.id);
    }
    if (isUniqueViolation(error) && input.externalId) {
      const other = await findCustomerByExternalId(ctx.db, vendorId, input.externalId);
      throw externalIdTaken("customer", other?.id);
    }
    throw error;
  }
  return getCustomer(ctx, vendorId, id);
}

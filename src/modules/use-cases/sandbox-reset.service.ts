// A sandbox's reset (CONTRACT 11) reaches beyond sandbox/: its orders' photos go from the store
// (photos/, CONTRACT 12) and the shop's own log records who reset it (activity/).
import type { ServiceContext } from "../../context.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { deletePhotosOfVendor } from "../photos/photos.repository.ts";
import { deleteRecordedBlobsLater, photoBlobKeys } from "../photos/photos.service.ts";
import { deleteSandboxRecords, findSandboxOf } from "../sandbox/sandbox.repository.ts";

/**
 * Deletes all sandbox data of the shop in one transaction: orders, customers, appointments,
 * inquiries, events with their deliveries, stored Idempotency-Key answers. Its test keys and its
 * webhook endpoints stay. False when the shop has no sandbox.
 */
export async function resetSandbox(ctx: ServiceContext, shopId: string): Promise<boolean> {
  const sandbox = await findSandboxOf(ctx.db, shopId);
  if (!sandbox) return false;
  const blobKeys = await ctx.db.transaction(async (tx) => {
    // The orders' photos first, their blobs recorded for deletion from the store (CONTRACT 12).
    const keys = await deletePhotosOfVendor(tx, sandbox.id, photoBlobKeys);
    await deleteSandboxRecords(tx, sandbox.id);
    // In the shop's own log (the sandbox's went with its data): who reset it, and when.
    await recordActivity(tx, {
      vendorId: shopId,
      action: "sandbox.reset",
      subjectId: sandbox.id,
      at: ctx.now(),
    });
    return keys;
  });
  await deleteRecordedBlobsLater(ctx, blobKeys);
  return true;
}

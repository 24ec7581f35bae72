// Progress photos of an order (CONTRACT 12, Photos). Rules:
// - a photo belongs to one order of one shop; another shop's order or photo is a 404 / 400;
// - its bytes are stored processed (photo-image.ts), never as uploaded;
// - its links carry a random token of their own (32 bytes), not the id: they need no credentials
//   (the bride's tracking page and mail show them) and cannot be guessed from anything the API shows;
// - a shop's photos take at most `photoQuotaBytes` of the store: past it, 409 storage_quota_exceeded;
// - erasure reaches the store: deleting a photo's row records its blobs in blob_deletions in the
//   same transaction, and the blobs are deleted after the commit (or by housekeeping after a crash).
import type { ServiceContext } from "../../context.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { generateSecret } from "../../lib/crypto.ts";
import { isId, newId } from "../../lib/ids.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { type ProcessedPhoto, processPhoto } from "./photo-image.ts";

export { type ProcessedPhoto, processPhoto } from "./photo-image.ts";

import {
  type AttachablePhoto,
  findPhotoByToken,
  forgetBlobDeletions,
  insertPhotoWithinQuota,
  lockPhotosOfVendor,
  lockVendorForPhotos,
  orderOfVendorExists,
  pendingBlobDeletions,
  photoBytesOfVendor,
} from "./photos.repository.ts";

export interface PhotoSettings {
  publicUrl: string;
  quotaBytes: number;
}

export interface StoredPhoto {
  id: string;
  url: string;
  thumbnailUrl: string;
  width: number;
  height: number;
}

export type PhotoSize = "full" | "thumb";

/** The store's keys of a photo's JPEG and thumbnail. */
export function photoBlobKeys(vendorId: string, id: string): string[] {
  return [photoBlobKey(vendorId, id, "full"), photoBlobKey(vendorId, id, "thumb")];
}

function photoBlobKey(vendorId: string, id: string, size: PhotoSize): string {
  return `photos/${vendorId}/${id}${size === "thumb" ? "-thumb" : ""}.jpg`;
}

/** The links a photo is served at (photo-serve.routes.ts). */
export function photoUrls(publicUrl: string, token: string): { url: string; thumbnailUrl: string } {
  return {
    url: `${publicUrl}/photos/${token}/full.jpg`,
    thumbnailUrl: `${publicUrl}/photos/${token}/thumb.jpg`,
  };
}

const PHOTO_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function storeOf(ctx: ServiceContext): BlobStore {
  if (!ctx.blobs) throw new Error("this service context has no blob store (STORAGE_URL)");
  return ctx.blobs;
}

export const quotaExceeded = (quotaBytes: number) =>
  new AppError(
    "storage_quota_exceeded",
    `This shop's photos would take more than its ${formatBytes(quotaBytes)} of storage: delete orders' photos or ask for more`,
    {
      errors: [
        { field: "file", message: `would exceed the shop's ${formatBytes(quotaBytes)} of photo storage` },
      ],
    },
  );

function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3
    ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB`
    : `${+(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/**
 * Checks what can be checked before the upload's bytes are read: the order is the vendor's and
 * the shop has room left at all.
 */
export async function assertPhotoUploadAllowed(
  ctx: ServiceContext,
  settings: PhotoSettings,
  vendorId: string,
  orderId: string,
): Promise<void> {
  if (!isId(orderId) || !(await orderOfVendorExists(ctx.db, vendorId, orderId))) throw notFound("Order");
  if ((await photoBytesOfVendor(ctx.db, vendorId)) >= settings.quotaBytes)
    throw quotaExceeded(settings.quotaBytes);
}

/** Processes and stores one photo of the vendor's order; answers it (201 body). */
export async function uploadPhoto(
  ctx: ServiceContext,
  settings: PhotoSettings,
  vendorId: string,
  orderId: string,
  bytes: Buffer,
): Promise<StoredPhoto> {
  if (!isId(orderId)) throw notFound("Order");
  return storePhoto(ctx, settings, vendorId, orderId, await processPhoto(bytes));
}

/** Stores a photo already processed (the dashboard checks every photo of a form before storing one). */
export async function storePhoto(
  ctx: ServiceContext,
  settings: PhotoSettings,
  vendorId: string,
  orderId: string,
  processed: ProcessedPhoto,
): Promise<StoredPhoto> {
  const store = storeOf(ctx);
  const id = newId();
  const token = generateSecret("", 32);
  const [fullKey, thumbKey] = photoBlobKeys(vendorId, id) as [string, string];
  // The blobs first: a row never names a blob that is not there. If the row is then refused (or
  // the process dies), the blobs name no row and are deleted (or never linked to).
  await store.put(fullKey, processed.full, "image/jpeg");
  await store.put(thumbKey, processed.thumbnail, "image/jpeg");
  const urls = photoUrls(settings.publicUrl, token);
  let outcome: Awaited<ReturnType<typeof insertPhotoWithinQuota>>;
  try {
    outcome = await ctx.db.transaction(async (tx) => {
      await lockVendorForPhotos(tx, vendorId);
      return insertPhotoWithinQuota(
        tx,
        {
          id,
          vendorId,
          orderId,
          token,
          ...urls,
          width: processed.width,
          height: processed.height,
          bytes: processed.full.length + processed.thumbnail.length,
          at: ctx.now(),
        },
        settings.quotaBytes,
      );
    });
  } catch (error) {
    await store.delete([fullKey, thumbKey]).catch(() => undefined);
    throw error;
  }
  if (outcome !== "inserted") {
    await store.delete([fullKey, thumbKey]);
    if (outcome === "no_order") throw notFound("Order");
    throw quotaExceeded(settings.quotaBytes);
  }
  return { id, ...urls, width: processed.width, height: processed.height };
}

/**
 * The photos a status update names (CONTRACT 12: photos of that order), locked for the update's
 * transaction, in upload order. An id that names no photo of this order (another shop's, another
 * order's, none) is unknown_reference; one already shown with an earlier entry is refused too.
 */
export async function photosToAttach(
  ctx: ServiceContext,
  vendorId: string,
  orderId: string,
  ids: readonly string[],
): Promise<AttachablePhoto[]> {
  const unknown = ids.filter((id) => !isId(id));
  const found = await lockPhotosOfVendor(ctx.db, vendorId, ids.filter(isId));
  const ofOrder = found.filter((p) => p.orderId === orderId);
  unknown.push(...ids.filter((id) => isId(id) && !ofOrder.some((p) => p.id === id)));
  if (unknown.length > 0) {
    throw fieldError("unknown_reference", "photoIds", `names no photo of this order: ${unknown.join(", ")}`);
  }
  const shown = ofOrder.filter((p) => p.updateSeq !== null).map((p) => p.id);
  if (shown.length > 0) {
    throw fieldError(
      "validation_failed",
      "photoIds",
      `already shown with another status entry: ${shown.join(", ")}`,
    );
  }
  return ofOrder;
}

/** The JPEG a link names; undefined for a token of the wrong shape or of no photo. */
export async function photoByToken(
  ctx: ServiceContext,
  token: string,
  size: PhotoSize,
): Promise<Buffer | undefined> {
  if (!PHOTO_TOKEN.test(token)) return undefined;
  const photo = await findPhotoByToken(ctx.db, token);
  if (!photo) return undefined;
  return storeOf(ctx).get(photoBlobKey(photo.vendorId, photo.id, size));
}

/**
 * Deletes recorded blobs from the store, then forgets them: after the transaction that deleted
 * their rows committed. A store that fails leaves them recorded for `finishBlobDeletions`.
 */
export async function deleteRecordedBlobs(ctx: ServiceContext, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await storeOf(ctx).delete(keys);
  await forgetBlobDeletions(ctx.db, keys);
}

/**
 * `deleteRecordedBlobs` for a caller whose own work is done (an erasure committed): a store that
 * fails now leaves the keys recorded, and housekeeping (`finishBlobDeletions`) deletes them later.
 */
export async function deleteRecordedBlobsLater(ctx: ServiceContext, keys: readonly string[]): Promise<void> {
  await deleteRecordedBlobs(ctx, keys).catch(() => undefined);
}

/** Housekeeping: deletes blobs still recorded (a crash or a store outage after their rows went). */
export async function finishBlobDeletions(ctx: ServiceContext, batch = 500): Promise<number> {
  const keys = await pendingBlobDeletions(ctx.db, batch);
  await deleteRecordedBlobs(ctx, keys);
  return keys.length;
}

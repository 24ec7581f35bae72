import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { blobDeletions, orderPhotos, orders } from "../../db/schema/index.ts";

export interface NewPhoto {
  id: string;
  vendorId: string;
  orderId: string;
  token: string;
  url: string;
  thumbnailUrl: string;
  width: number;
  height: number;
  bytes: number;
  at: Date;
}

/** Whether the vendor has this order (an upload names its order first). */
export async function orderOfVendorExists(db: Executor, vendorId: string, orderId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, orderId)));
  return row !== undefined;
}

/** Bytes the vendor's photos take in the store. */
export async function photoBytesOfVendor(db: Executor, vendorId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<string | null>`sum(${orderPhotos.bytes})` })
    .from(orderPhotos)
    .where(eq(orderPhotos.vendorId, vendorId));
  return Number(row?.bytes ?? 0);
}

/**
 * Locks the vendor's row until the transaction ends (FOR NO KEY UPDATE): uploads of one shop then
 * count its bytes one at a time, so two at once cannot both pass a check made before either
 * counted. A statement after this one sees what the one before committed (READ COMMITTED takes a
 * snapshot per statement), which a single statement waiting on the lock would not.
 */
export async function lockVendorForPhotos(db: Executor, vendorId: string): Promise<void> {
  await queryRows(db, sql`select id from vendors where id = ${vendorId}::text for no key update`);
}

/**
 * Inserts the photo when the order is the vendor's and the vendor's photos with it stay within
 * `quotaBytes` (run after lockVendorForPhotos, in its transaction).
 */
export async function insertPhotoWithinQuota(
  db: Executor,
  photo: NewPhoto,
  quotaBytes: number,
): Promise<"inserted" | "no_order" | "over_quota"> {
  const [row] = await queryRows<{ order_found: boolean; inserted: boolean }>(
    db,
    sql`with o as (
          select o.id from orders o where o.vendor_id = ${photo.vendorId}::text and o.id = ${photo.orderId}::text
        ), used as (
          select coalesce(sum(p.bytes), 0) as bytes from order_photos p where p.vendor_id = ${photo.vendorId}::text
        ), ins as (
          insert into order_photos (id, vendor_id, order_id, token, url, thumbnail_url, width, height, bytes, created_at)
          select ${photo.id}::text, ${photo.vendorId}::text, o.id, ${photo.token}::text, ${photo.url}::text,
                 ${photo.thumbnailUrl}::text, ${photo.width}::int, ${photo.height}::int, ${photo.bytes}::bigint,
                 ${photo.at.toISOString()}::timestamptz
          from o, used where used.bytes + ${photo.bytes}::bigint <= ${quotaBytes}::bigint
          returning id
        )
        select exists (select 1 from o) as order_found, exists (select 1 from ins) as inserted`,
  );
  if (!row?.order_found) return "no_order";
  return row.inserted ? "inserted" : "over_quota";
}

export interface AttachablePhoto {
  id: string;
  orderId: string;
  url: string;
  thumbnailUrl: string;
  updateSeq: number | null;
}

/** The vendor's photos among `ids`, locked until the transaction ends (a status update attaches them). */
export async function lockPhotosOfVendor(
  db: Executor,
  vendorId: string,
  ids: readonly string[],
): Promise<AttachablePhoto[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: orderPhotos.id,
      orderId: orderPhotos.orderId,
      url: orderPhotos.url,
      thumbnailUrl: orderPhotos.thumbnailUrl,
      updateSeq: orderPhotos.updateSeq,
    })
    .from(orderPhotos)
    .where(and(eq(orderPhotos.vendorId, vendorId), inArray(orderPhotos.id, [...ids])))
    .orderBy(orderPhotos.createdAt, orderPhotos.id)
    .for("update");
}

/** The photo a link's token names. */
export async function findPhotoByToken(
  db: Executor,
  token: string,
): Promise<{ id: string; vendorId: string } | undefined> {
  const [row] = await db
    .select({ id: orderPhotos.id, vendorId: orderPhotos.vendorId })
    .from(orderPhotos)
    .where(eq(orderPhotos.token, token));
  return row;
}

/**
 * Deletes the photos of the vendor's orders of `customerId` (an erasure) and records their blobs
 * for deletion from the store, in the caller's transaction; returns the blob keys.
 */
export async function deletePhotosOfCustomer(
  db: Executor,
  vendorId: string,
  customerId: string,
  keysOf: (vendorId: string, id: string) => string[],
): Promise<string[]> {
  const gone = await db
    .delete(orderPhotos)
    .where(
      and(
        eq(orderPhotos.vendorId, vendorId),
        inArray(
          orderPhotos.orderId,
          db
            .select({ id: orders.id })
            .from(orders)
            .where(and(eq(orders.vendorId, vendorId), eq(orders.customerId, customerId))),
        ),
      ),
    )
    .returning({ id: orderPhotos.id, vendorId: orderPhotos.vendorId });
  return recordBlobDeletions(
    db,
    gone.flatMap((p) => keysOf(p.vendorId, p.id)),
  );
}

/** Deletes every photo of the vendor's orders (before the orders themselves go); returns the blob keys. */
export async function deletePhotosOfVendor(
  db: Executor,
  vendorId: string,
  keysOf: (vendorId: string, id: string) => string[],
): Promise<string[]> {
  const gone = await db
    .delete(orderPhotos)
    .where(eq(orderPhotos.vendorId, vendorId))
    .returning({ id: orderPhotos.id, vendorId: orderPhotos.vendorId });
  return recordBlobDeletions(
    db,
    gone.flatMap((p) => keysOf(p.vendorId, p.id)),
  );
}

async function recordBlobDeletions(db: Executor, keys: string[]): Promise<string[]> {
  if (keys.length > 0) {
    await db
      .insert(blobDeletions)
      .values(keys.map((key) => ({ key, createdAt: new Date() })))
      .onConflictDoNothing();
  }
  return keys;
}

/** Blob deletions not yet confirmed by the store, oldest first. */
export async function pendingBlobDeletions(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .select({ key: blobDeletions.key })
    .from(blobDeletions)
    .orderBy(blobDeletions.createdAt)
    .limit(limit);
  return rows.map((r) => r.key);
}

export async function forgetBlobDeletions(db: Executor, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.delete(blobDeletions).where(inArray(blobDeletions.key, [...keys]));
}

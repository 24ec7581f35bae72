// Photos in the status history (CONTRACT 12, Photos): PUT …/status takes photoIds (photos of that
// order only), the entry and order.status_changed carry { id, url, thumbnailUrl }, the tracking
// page shows them, and an erasure deletes rows and blobs, as the shop's storage quota counts them.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getOrderTrackingToken } from "../../src/modules/orders/orders.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { cameraJpeg, fetchPhoto, noiseImage, uploadPhoto } from "../helpers/photos.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { useTestApp } from "../helpers/test-app.ts";

const dataDir = tempDir("photos-status");
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
// 2 MiB per shop: a few small photos fit, a large one does not.
const t = useTestApp({ env: { DATA_DIR: dataDir, PHOTO_QUOTA_MB: "2" } });

let key: string;
let vendorId: string;
let camera: Buffer;
beforeAll(async () => {
  const v = await createVendorWithKey(t.ctx);
  key = v.key;
  vendorId = v.vendor.id;
  camera = await cameraJpeg(1200, 900);
});

const newOrder = async (k = key, email?: string) =>
  (
    await t.api.post(
      "/api/vendor/orders",
      { customerName: "Bea Bride", ...(email ? { customerEmail: email } : {}), type: "BRIDAL_DRESS" },
      { key: k },
    )
  ).body as { id: string; customerId: string };
const upload = async (orderId: string, k = key, bytes = camera) => {
  const res = await uploadPhoto(t.url, orderId, bytes, { key: k });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; url: string; thumbnailUrl: string };
};
const put = (orderId: string, body: unknown, k = key) =>
  t.api.put(`/api/vendor/orders/${orderId}/status`, body, { key: k });
const blobFiles = () =>
  fs
    .readdirSync(path.join(dataDir, "blobs"), { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => f.name);

describe("photoIds on PUT /api/vendor/orders/{id}/status", () => {
  it("shows the photos with the entry, in the order JSON, the event and the tracking page", async () => {
    const order = await newOrder();
    const a = await upload(order.id);
    const b = await upload(order.id);
    const res = await put(order.id, {
      status: "IN_PRODUCTION",
      message: "Cut and pinned",
      photoIds: [b.id, a.id],
    });
    expect(res.status, res.text).toBe(200);

    const got = await t.api.get(`/api/vendor/orders/${order.id}`, { key });
    const entry = got.body.updates.at(-1);
    const expected = [a, b].map((p) => ({ id: p.id, url: p.url, thumbnailUrl: p.thumbnailUrl }));
    expect(entry).toMatchObject({ status: "IN_PRODUCTION", message: "Cut and pinned", photos: expected });
    expect(got.body.updates[0].photos).toEqual([]);

    const events = await t.api.get("/api/vendor/events?type=order.status_changed", { key });
    const event = events.body.events.find((e: { data: { id: string } }) => e.data.id === order.id);
    expect(event.data.photos).toEqual(expected);

    const token = await getOrderTrackingToken(t.ctx, vendorId, order.id);
    const page = await fetch(`${t.url}/track/${token}`).then((r) => r.text());
    for (const p of [a, b]) {
      expect(page).toContain(`href="${p.url}"`);
      expect(page).toContain(`src="${p.thumbnailUrl}"`);
    }
  });

  it("refuses another shop's photo, another order's photo and an unknown id, naming photoIds", async () => {
    const order = await newOrder();
    const otherOrder = await newOrder();
    const other = await createVendorWithKey(t.ctx);
    const theirs = await upload((await newOrder(other.key)).id, other.key);
    const ofOtherOrder = await upload(otherOrder.id);
    for (const id of [theirs.id, ofOtherOrder.id, "nosuchphoto0000000000000", "../etc"]) {
      const res = await put(order.id, { status: "IN_PRODUCTION", photoIds: [id] });
      expect(res.status, id).toBe(400);
      expect(res.body).toMatchObject({ code: "unknown_reference", errors: [{ field: "photoIds" }] });
    }
    // Nothing moved: the order is still ORDERED with its one entry.
    const got = await t.api.get(`/api/vendor/orders/${order.id}`, { key });
    expect(got.body).toMatchObject({ status: "ORDERED", updates: [{ status: "ORDERED" }] });
    // Another shop's order with our photo: 404, as any of its ids.
    expect(
      (await put((await newOrder(other.key)).id, { status: "IN_PRODUCTION", photoIds: [ofOtherOrder.id] }))
        .status,
    ).toBe(404);
  });

  it("refuses a photo already shown with another entry", async () => {
    const order = await newOrder();
    const p = await upload(order.id);
    expect((await put(order.id, { status: "IN_PRODUCTION", photoIds: [p.id] })).status).toBe(200);
    const again = await put(order.id, { status: "FITTING_READY", photoIds: [p.id] });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: "validation_failed", errors: [{ field: "photoIds" }] });
  });
});

describe("erasure and quota", () => {
  it("an erasure deletes her orders' photos from the store, not just the rows", async () => {
    const order = await newOrder(key, `bea-${Date.now()}@example.test`);
    const shown = await upload(order.id);
    const unshown = await upload(order.id);
    expect(
      (await put(order.id, { status: "IN_PRODUCTION", message: "Look", photoIds: [shown.id] })).status,
    ).toBe(200);
    expect(blobFiles()).toEqual(
      expect.arrayContaining([`${shown.id}.jpg`, `${shown.id}-thumb.jpg`, `${unshown.id}.jpg`]),
    );

    const erased = await t.api.delete(`/api/vendor/customers/${order.customerId}`, { key });
    expect(erased.status, erased.text).toBe(204);
    const left = blobFiles();
    for (const p of [shown, unshown]) {
      expect(left.filter((name) => name.startsWith(p.id))).toEqual([]);
      expect((await fetchPhoto(p.url)).status).toBe(404);
      expect((await fetchPhoto(p.thumbnailUrl)).status).toBe(404);
    }
    const got = await t.api.get(`/api/vendor/orders/${order.id}`, { key });
    expect(got.body.updates.flatMap((u: { photos: unknown[] }) => u.photos)).toEqual([]);
  });

  it("answers 409 storage_quota_exceeded past the shop's quota, and counts only its own shop", async () => {
    const shop = await createVendorWithKey(t.ctx);
    const order = await newOrder(shop.key);
    // Random pixels stay ~1 MB as JPEG: the second cannot fit in 2 MiB.
    const noise = await noiseImage(1400, 1000, 7);
    await upload(order.id, shop.key, noise);
    let refused: Awaited<ReturnType<typeof uploadPhoto>> | undefined;
    for (let i = 0; i < 3 && !refused; i++) {
      const res = await uploadPhoto(t.url, order.id, noise, { key: shop.key });
      if (res.status !== 201) refused = res;
    }
    expect(refused?.status).toBe(409);
    expect(refused?.body).toMatchObject({ code: "storage_quota_exceeded", errors: [{ field: "file" }] });
    // Another shop still has its own room.
    const other = await createVendorWithKey(t.ctx);
    await upload((await newOrder(other.key)).id, other.key, noise);
  }, 120_000); // CPU: several ~1 MB photos re-encoded on a shared 2-core host, not a contract bound
});

// The S3 blob store against a real S3-protocol server (s3rver, started here on a free port):
// STORAGE_URL=s3://<bucket>?endpoint=…&region=…&forcePathStyle=true with AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (CONTRACT 12). A photo uploaded through the API lands in the bucket
// processed (no EXIF/GPS), is served from it through its link, and an erasure deletes the objects.
import fs from "node:fs";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { cameraJpeg, fetchPhoto, metadataBlocks, uploadPhoto } from "../helpers/photos.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const BUCKET = "shop-photos";
// s3rver's own fixed credentials (it checks the signature made with them).
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

describe("photos in an S3-compatible store", () => {
  const dir = tempDir("s3rver");
  let server: S3rver;
  let endpoint: string;
  let t: TestApp;
  let s3: S3Client;
  beforeAll(async () => {
    server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: BUCKET }],
    });
    const address = await server.run();
    endpoint = `http://127.0.0.1:${address.port}`;
    t = await startTestApp({
      env: {
        STORAGE_URL: `s3://${BUCKET}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true`,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        DATA_DIR: dir,
      },
    });
    s3 = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const keysInBucket = async () =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key ?? "");

  it("stores the processed photo in the bucket, serves it from there and deletes it with an erasure", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Sara S3", customerEmail: `sara-${Date.now()}@example.test`, type: "BRIDAL_DRESS" },
      { key },
    );
    const res = await uploadPhoto(t.url, order.body.id, await cameraJpeg(), { key });
    expect(res.status, res.text).toBe(201);
    const photo = res.body as { id: string; url: string; thumbnailUrl: string };

    const keys = await keysInBucket();
    const full = `photos/${vendor.id}/${photo.id}.jpg`;
    const thumb = `photos/${vendor.id}/${photo.id}-thumb.jpg`;
    expect(keys).toEqual(expect.arrayContaining([full, thumb]));
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: full }));
    const stored = Buffer.from(
      await (object.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array())),
    );
    expect(await metadataBlocks(stored)).toEqual([]);

    const served = await fetchPhoto(photo.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(served.bytes.equals(stored)).toBe(true);
    // Nothing of the photo in the file store: the bucket is the only copy.
    expect(fs.existsSync(`${dir}/blobs`)).toBe(false);

    expect(
      (
        await t.api.put(
          `/api/vendor/orders/${order.body.id}/status`,
          { status: "IN_PRODUCTION", photoIds: [photo.id] },
          { key },
        )
      ).status,
    ).toBe(200);
    const erased = await t.api.delete(`/api/vendor/customers/${order.body.customerId}`, { key });
    expect(erased.status, erased.text).toBe(204);
    const after = await keysInBucket();
    expect(after).not.toContain(full);
    expect(after).not.toContain(thumb);
    expect((await fetchPhoto(photo.url)).status).toBe(404);
  });
});

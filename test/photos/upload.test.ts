// POST /api/vendor/orders/{id}/photos (CONTRACT 12, Photos): what is stored is a JPEG of at most
// 2048 px without EXIF/GPS, served through an unguessable link with image headers; every bad
// upload is a problem naming `file`, never a 500 or a hang.
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { cameraJpeg, decompressionBomb, fetchPhoto, metadataBlocks, uploadPhoto } from "../helpers/photos.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { useTestApp } from "../helpers/test-app.ts";

const dataDir = tempDir("photos");
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const t = useTestApp({ env: { DATA_DIR: dataDir } });

let key: string;
let vendorId: string;
let orderId: string;
let camera: Buffer;
beforeAll(async () => {
  const v = await createVendorWithKey(t.ctx);
  key = v.key;
  vendorId = v.vendor.id;
  const order = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Ana Photo", type: "BRIDAL_DRESS" },
    { key },
  );
  orderId = order.body.id;
  camera = await cameraJpeg();
});

const upload = (
  bytes: Buffer | undefined,
  options: Partial<Parameters<typeof uploadPhoto>[3]> = {},
  id = orderId,
) => uploadPhoto(t.url, id, bytes, { key, ...options });

describe("POST /api/vendor/orders/{id}/photos", () => {
  it("stores a camera JPEG resized, re-encoded and without EXIF or GPS", async () => {
    expect(await metadataBlocks(camera)).toContain("exif");
    const res = await upload(camera);
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["height", "id", "thumbnailUrl", "url", "width"]);
    expect(res.body).toMatchObject({ width: 2048, height: 1365 });
    expect(res.headers.get("location")).toBe(res.body.url);
    expect(res.body.url.startsWith(`${t.url}/photos/`)).toBe(true);
    // The link is not the id: a random token of its own.
    expect(res.body.url).not.toContain(res.body.id);

    const full = await fetchPhoto(res.body.url);
    expect(full.status).toBe(200);
    expect(full.headers.get("content-type")).toBe("image/jpeg");
    expect(full.headers.get("x-content-type-options")).toBe("nosniff");
    expect(full.headers.get("cache-control")).toMatch(/max-age=31536000/);
    const meta = await sharp(full.bytes).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width: 2048, height: 1365 });
    expect(await metadataBlocks(full.bytes)).toEqual([]);
    expect(full.bytes.includes(Buffer.from("Workroom Phone"))).toBe(false);

    const thumb = await fetchPhoto(res.body.thumbnailUrl);
    expect(thumb.status).toBe(200);
    const thumbMeta = await sharp(thumb.bytes).metadata();
    expect(Math.max(thumbMeta.width ?? 0, thumbMeta.height ?? 0)).toBe(400);
    expect(await metadataBlocks(thumb.bytes)).toEqual([]);
  });

  it("keeps the files readable by the service's user alone under DATA_DIR", async () => {
    const res = await upload(camera);
    expect(res.status).toBe(201);
    const files = fs.readdirSync(path.join(dataDir, "blobs"), { recursive: true, withFileTypes: true });
    const ours = files.filter((f) => f.isFile() && f.name.startsWith(res.body.id));
    expect(ours.map((f) => f.name).sort()).toEqual([`${res.body.id}-thumb.jpg`, `${res.body.id}.jpg`]);
    for (const f of ours) expect(fs.statSync(path.join(f.parentPath, f.name)).mode & 0o777).toBe(0o600);
    let dir = ours[0]?.parentPath ?? "";
    while (dir.startsWith(path.join(dataDir, "blobs"))) {
      expect(fs.statSync(dir).mode & 0o777, dir).toBe(0o700);
      dir = path.dirname(dir);
    }
  });

  it("turns other image formats into JPEG", async () => {
    const png = await sharp({ create: { width: 800, height: 600, channels: 4, background: "#3a6" } })
      .png()
      .toBuffer();
    const res = await upload(png, { filename: "scan.png", type: "image/png" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ width: 800, height: 600 });
    expect((await sharp((await fetchPhoto(res.body.url)).bytes).metadata()).format).toBe("jpeg");
  });

  it("trusts the bytes, not the name or the declared type", async () => {
    const png = await sharp({ create: { width: 50, height: 40, channels: 3, background: "#123" } })
      .png()
      .toBuffer();
    const res = await upload(png, { filename: "notes.pdf", type: "application/pdf" });
    expect(res.status, res.text).toBe(201);
  });

  const refusals: Array<
    [string, () => Promise<Buffer | undefined>, Record<string, unknown>, number, string, RegExp]
  > = [
    [
      "a PDF renamed .jpg",
      async () => Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n"),
      {},
      415,
      "unsupported_media_type",
      /PDF/,
    ],
    [
      "an SVG",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      {},
      415,
      "unsupported_media_type",
      /SVG|text document/,
    ],
    [
      "a truncated JPEG",
      async () => camera.subarray(0, Math.floor(camera.length / 2)),
      {},
      400,
      "validation_failed",
      /truncated/,
    ],
    [
      "a decompression bomb",
      decompressionBomb,
      { filename: "bomb.png" },
      400,
      "validation_failed",
      /megapixels/,
    ],
    ["an empty part", async () => Buffer.alloc(0), {}, 400, "validation_failed", /empty/],
    [
      "no file part",
      async () => undefined,
      { extra: { note: "no photo" } },
      400,
      "validation_failed",
      /missing/,
    ],
    [
      "the photo under another name",
      async () => camera,
      { field: "image" },
      400,
      "validation_failed",
      /"image"/,
    ],
  ];
  it.each(refusals)(
    "refuses %s with a problem naming file",
    async (_name, make, options, status, code, detail) => {
      const res = await upload(await make(), options);
      expect(res.status, res.text).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe(code);
      expect(res.body.detail).toMatch(detail);
      expect(res.body.errors).toEqual([{ field: "file", message: expect.stringMatching(detail) }]);
    },
  );

  it("refuses 40 MB with 413 while it streams, declared or not", async () => {
    const big = Buffer.concat([camera, Buffer.alloc(40 * 1024 * 1024 - camera.length, 7)]);
    const res = await upload(big);
    expect(res.status, res.text).toBe(413);
    expect(res.body).toMatchObject({ code: "payload_too_large", errors: [{ field: "file" }] });

    // Chunked, with no Content-Length to refuse up front: cut off at 15 MB while reading.
    const chunks = async function* () {
      const boundary = "----photo-boundary";
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      );
      for (let i = 0; i < 40; i++) yield Buffer.alloc(1024 * 1024, 7);
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    };
    const streamed = await fetch(`${t.url}/api/vendor/orders/${orderId}/photos`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "multipart/form-data; boundary=----photo-boundary" },
      body: chunks() as unknown as BodyInit,
      duplex: "half",
    } as RequestInit);
    const problem = await streamed.json();
    expect(streamed.status, JSON.stringify(problem)).toBe(413);
    expect(problem).toMatchObject({ code: "payload_too_large", errors: [{ field: "file" }] });
  }, 120_000); // CPU: 80 MB sent and parsed on a shared 2-core host, not a contract bound

  it("refuses a body that is not multipart with 415", async () => {
    const res = await t.api.post(`/api/vendor/orders/${orderId}/photos`, { file: "x" }, { key });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: "unsupported_media_type", errors: [{ field: "file" }] });
  });

  it("answers 404 for another shop's order and 403 without orders:write", async () => {
    const other = await createVendorWithKey(t.ctx);
    expect((await upload(camera, { key: other.key })).status).toBe(404);
    expect((await upload(camera, {}, "nosuchorder0000000000000")).status).toBe(404);
    const readKey = await createKey(t.ctx, vendorId, ["orders:read"]);
    expect((await upload(camera, { key: readKey })).status).toBe(403);
  });

  it("answers 404 for a link of no photo", async () => {
    const res = await upload(camera);
    const wrong = res.body.url.replace(/\/photos\/[^/]+\//, `/photos/${"A".repeat(43)}/`);
    expect((await fetchPhoto(wrong)).status).toBe(404);
    expect((await fetchPhoto(res.body.url.replace("full.jpg", "other.jpg"))).status).toBe(404);
  });
});

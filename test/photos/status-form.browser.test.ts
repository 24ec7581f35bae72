// In Chromium at 390 px, JavaScript off: the shop's status form takes a photo from the "camera"
// (a file input with capture), and the bride's tracking page shows it resized, without EXIF/GPS
// (CONTRACT 12, Photos).
import fs from "node:fs";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getOrderTrackingToken } from "../../src/modules/orders/orders.service.ts";
import { useChromium } from "../helpers/chromium.ts";
import { shot, signedInPage } from "../helpers/chromium-dashboard.ts";
import { createKey, createVendor } from "../helpers/factories.ts";
import { cameraJpeg, fetchPhoto, metadataBlocks } from "../helpers/photos.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

describe.skipIf(!chromium.available)(
  "photos through the status form in Chromium",
  { timeout: 240_000 },
  () => {
    const dataDir = tempDir("photos-browser");
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { DATA_DIR: dataDir } });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it("a photo posted with the status comes back resized and without EXIF/GPS on the tracking page", async () => {
      const vendor = await createVendor(t.ctx, "Atelier Camera");
      const key = await createKey(t.ctx, vendor.id);
      const order = await t.api.post(
        "/api/vendor/orders",
        { customerName: "Cora Camera", type: "BRIDAL_DRESS" },
        { key },
      );
      const camera = await cameraJpeg(4000, 3000);
      expect(await metadataBlocks(camera)).toContain("exif");

      const { context, page } = await signedInPage(chromium.browser, t.url, vendor.email, 390);
      await page.goto(`${t.url}/dashboard/orders/${order.body.id}`);
      const input = page.locator('input[type="file"][name="photos"]');
      expect(await input.getAttribute("accept")).toBe("image/*");
      expect(await input.getAttribute("capture")).toBe("environment");
      expect(await input.getAttribute("multiple")).not.toBeNull();
      await page.selectOption("#status", "IN_PRODUCTION");
      await page.fill("#message", "The bodice is cut");
      await input.setInputFiles({ name: "IMG_0042.JPG", mimeType: "image/jpeg", buffer: camera });
      await shot(page, "status-form-photo", 390);
      await page.click('.status-form button[type="submit"]');
      await page.waitForURL(`${t.url}/dashboard/orders/${order.body.id}`);
      expect(await page.textContent("body")).toContain("with 1 photo");
      await context.close();

      // The bride's page: no session, only the link.
      const token = await getOrderTrackingToken(t.ctx, vendor.id, order.body.id);
      const bride = await chromium.browser.newContext({
        viewport: { width: 390, height: 900 },
        javaScriptEnabled: false,
      });
      const tracking = await bride.newPage();
      await tracking.goto(`${t.url}/track/${token}`);
      const img = tracking.locator("ol.timeline .photos img");
      await expect.poll(() => img.count()).toBe(1);
      // Chromium loaded the thumbnail (CSP and headers let it).
      await expect
        .poll(() =>
          img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth),
        )
        .toBe(400);
      const fullUrl = await tracking.locator("ol.timeline .photos a").getAttribute("href");
      await shot(tracking, "tracking-photo", 390);
      await bride.close();

      const full = await fetchPhoto(fullUrl ?? "");
      expect(full.status).toBe(200);
      const meta = await sharp(full.bytes).metadata();
      expect(meta).toMatchObject({ format: "jpeg", width: 2048, height: 1536 });
      expect(await metadataBlocks(full.bytes)).toEqual([]);
      expect(full.bytes.includes(Buffer.from("Workroom Phone"))).toBe(false);
    });
  },
);

// Photos for the photo tests (CONTRACT 12, Photos), made with sharp in the test: a camera JPEG
// carrying EXIF with a GPS position, an image of random pixels (JPEG cannot shrink it, for the
// quota), a decompression bomb, and a multipart upload of any bytes under any name and type.
import sharp from "sharp";
import type { ApiResponse } from "./api-client.ts";

/** A workroom photo as a phone writes it: 3000×2000, EXIF with camera and GPS position (48°51′N 2°21′E). */
export async function cameraJpeg(width = 3000, height = 2000): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 60 } } })
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Make: "Acme", Model: "Workroom Phone", Software: "Camera 1.0" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 24/1",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 3/1",
      },
    })
    .toBuffer();
}

/** The metadata blocks an image carries (exif, icc, xmp, iptc), as sharp reads them. */
export async function metadataBlocks(bytes: Buffer): Promise<string[]> {
  const meta = await sharp(bytes).metadata();
  return (["exif", "icc", "xmp", "iptc"] as const).filter((k) => meta[k] !== undefined);
}

/** Pixels from a seeded generator: the same bytes every run, and a JPEG of them stays large. */
export async function noiseImage(width: number, height: number, seed = 1): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < pixels.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    pixels[i] = x & 0xff;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** A PNG of 10000×9000 pixels (90 megapixels) in a few hundred KiB. */
export async function decompressionBomb(): Promise<Buffer> {
  return sharp({ create: { width: 10_000, height: 9_000, channels: 3, background: "#ffffff" } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

export interface UploadOptions {
  key: string;
  field?: string;
  filename?: string;
  type?: string;
  /** More parts sent after the photo's (name → text). */
  extra?: Record<string, string>;
}

/** POST /api/vendor/orders/{id}/photos as multipart/form-data, the way a browser or curl sends it. */
export async function uploadPhoto(
  baseUrl: string,
  orderId: string,
  bytes: Buffer | undefined,
  options: UploadOptions,
): Promise<ApiResponse> {
  const form = new FormData();
  if (bytes !== undefined) {
    form.append(
      options.field ?? "file",
      new Blob([new Uint8Array(bytes)], { type: options.type ?? "image/jpeg" }),
      options.filename ?? "photo.jpg",
    );
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) form.append(name, value);
  const res = await fetch(`${baseUrl}/api/vendor/orders/${orderId}/photos`, {
    method: "POST",
    headers: { "x-api-key": options.key },
    body: form,
  });
  const text = await res.text();
  const body = /json/.test(res.headers.get("content-type") ?? "") && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, body, text };
}

/** GET of a photo link: status, headers and bytes. */
export async function fetchPhoto(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

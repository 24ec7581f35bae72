// What a shop's photo becomes before it is stored (CONTRACT 12, Photos). Rules:
// - images only, recognised from their bytes (libvips' own sniffing), never from the file name or
//   the declared Content-Type: a PDF named photo.jpg is refused (415);
// - raster formats a phone or camera writes (JPEG, PNG, WebP, HEIF/AVIF, GIF, TIFF); SVG is not
//   one (it is a document, with links);
// - at most MAX_INPUT_PIXELS before decoding (a decompression bomb is a few KiB that decode to
//   gigabytes): refused from the header, without decoding it;
// - a truncated or corrupt file is refused, never stored half grey;
// - re-encoded as JPEG, turned upright from its EXIF orientation, at most 2048 px on the long side,
//   with a 400 px thumbnail; no metadata is carried over (EXIF with its GPS position, XMP, IPTC,
//   the ICC profile: pixels are converted to sRGB instead), so a workroom photo does not carry the
//   shop's location or the camera's serial number.
import type { Metadata } from "sharp";
import { AppError } from "../../errors.ts";

/** CONTRACT 12: photos are at most 2048 px on the long side. */
export const MAX_PHOTO_SIDE = 2048;
export const THUMBNAIL_SIDE = 400;
/** At most 15 MB in (a phone's full-resolution JPEG is 2-8 MB). */
export const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;
/** 64 megapixels: above a 50 MP phone camera's output, far below what would exhaust memory. */
export const MAX_INPUT_PIXELS = 64_000_000;

const ACCEPTED = new Set(["jpeg", "png", "webp", "heif", "avif", "gif", "tiff"]);
const ACCEPTED_TEXT = "JPEG, PNG, WebP, HEIF, AVIF, GIF or TIFF";

type Sharp = typeof import("sharp").default;
let sharpLoaded: Promise<Sharp> | undefined;

/** sharp (libvips) is loaded at the first photo, not at start (docs/decisions/0016). */
function loadSharp(): Promise<Sharp> {
  sharpLoaded ??= import("sharp").then(({ default: sharp }) => {
    // libvips' decoders share the process's threads: a few at a time keeps requests answering.
    sharp.concurrency(2);
    return sharp;
  });
  return sharpLoaded;
}

export interface ProcessedPhoto {
  full: Buffer;
  thumbnail: Buffer;
  width: number;
  height: number;
}

const refuse = (code: "validation_failed" | "unsupported_media_type", message: string) =>
  new AppError(code, `file ${message}`, { errors: [{ field: "file", message }] });

/** What the first bytes say the file is, for the refusal's wording (not for accepting it). */
function describe(bytes: Buffer): string {
  const head = bytes.subarray(0, 8).toString("latin1");
  if (head.startsWith("%PDF")) return "a PDF document";
  if (head.startsWith("PK")) return "a ZIP archive or office document";
  if (/^\s*</.test(head)) return "a text document (HTML, XML or SVG)";
  return "not an image";
}

export async function processPhoto(input: Buffer): Promise<ProcessedPhoto> {
  if (input.length === 0) throw refuse("validation_failed", "is empty");
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw refuse("unsupported_media_type", `is ${describe(input)}: send a photo (${ACCEPTED_TEXT})`);
  }
  if (!meta.format || !ACCEPTED.has(meta.format)) {
    const what =
      meta.format === "svg"
        ? "an SVG drawing"
        : meta.format
          ? `a ${meta.format.toUpperCase()} file`
          : describe(input);
    throw refuse("unsupported_media_type", `is ${what}: send a photo (${ACCEPTED_TEXT})`);
  }
  const { width = 0, height = 0 } = meta;
  if (width * height > MAX_INPUT_PIXELS) {
    throw refuse(
      "validation_failed",
      `is ${width}×${height} pixels, more than the ${MAX_INPUT_PIXELS / 1_000_000} megapixels accepted`,
    );
  }
  try {
    // failOn "truncated": a file cut short is an error, not a photo with a grey lower half.
    const source = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "truncated" }).rotate();
    const full = await source
      .clone()
      .resize({ width: MAX_PHOTO_SIDE, height: MAX_PHOTO_SIDE, fit: "inside", withoutEnlargement: true })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    const thumbnail = await sharp(full.data)
      .resize({ width: THUMBNAIL_SIDE, height: THUMBNAIL_SIDE, fit: "inside", withoutEnlargement: true })
      .jpeg({ quality: 78, mozjpeg: true })
      .toBuffer();
    return { full: full.data, thumbnail, width: full.info.width, height: full.info.height };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(reason)) {
      throw refuse(
        "validation_failed",
        `has more than the ${MAX_INPUT_PIXELS / 1_000_000} megapixels accepted`,
      );
    }
    throw refuse("validation_failed", `could not be read as an image: it is truncated or damaged`);
  }
}

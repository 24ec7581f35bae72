// The status form's photos from the camera (CONTRACT 12, Photos): the form is a plain
// multipart/form-data post (no script needed), its photos read into memory bounded, each at most
// 15 MB and all of them at most MAX_FORM_BYTES, then checked and stored like the API's uploads.
// A photo that is not one, or too large, refuses the whole form with a flash naming it: nothing
// is stored and the status does not move. Refusals read in the member's language
// (dashboard.orders.photoErrors).
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
import { MAX_UPLOAD_BYTES } from "../../modules/photos/photo-image.ts";
import {
  type PhotoSettings,
  type ProcessedPhoto,
  processPhoto,
  storePhoto,
} from "../../modules/photos/photos.service.ts";
import { readerOf } from "../../web/reader.ts";
import { ReaderRefusal } from "../../web/refusal.ts";

export const PHOTO_FIELD = "photos";
/** Photos in one status form. */
export const MAX_FORM_PHOTOS = 10;
const MAX_FORM_BYTES = 60 * 1024 * 1024;

interface Upload {
  name: string;
  bytes: Buffer;
  tooLarge: boolean;
}

const uploads = new WeakMap<FastifyRequest, Upload[]>();

/** Lets this scope's routes take multipart forms (their text fields become the body, CSRF field included). */
export async function acceptPhotoForms(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: "keyValues",
    throwFileSizeLimit: false,
    limits: {
      fileSize: MAX_UPLOAD_BYTES,
      files: MAX_FORM_PHOTOS,
      fields: 20,
      fieldSize: 8192,
      parts: MAX_FORM_PHOTOS + 20,
      headerPairs: 50,
    },
    async onFile(part) {
      const list = uploads.get(this) ?? [];
      uploads.set(this, list);
      const taken = list.reduce((sum, u) => sum + u.bytes.length, 0);
      if (part.fieldname !== PHOTO_FIELD || taken > MAX_FORM_BYTES) {
        part.file.resume();
        if (part.fieldname === PHOTO_FIELD)
          list.push({ name: part.filename, bytes: Buffer.alloc(0), tooLarge: true });
        return;
      }
      const bytes = await part.toBuffer();
      // A file input left empty is sent as a part with no name and no bytes: no photo.
      if (part.filename === "" && bytes.length === 0) return;
      list.push({ name: part.filename, bytes, tooLarge: part.file.truncated });
    },
  });
}

/**
 * The form's photos checked (each an image within the limits), then stored for the order; their
 * ids, for the status update. Any refusal names the photo's file name.
 */
export async function storeFormPhotos(
  request: FastifyRequest,
  ctx: Parameters<typeof storePhoto>[0],
  settings: PhotoSettings,
  vendorId: string,
  orderId: string,
): Promise<string[]> {
  const { t } = readerOf(request);
  const k = (key: string, values: Record<string, string> = {}) =>
    t.t(`dashboard.orders.photoErrors.${key}`, values);
  const list = uploads.get(request) ?? [];
  const processed: ProcessedPhoto[] = [];
  for (const upload of list) {
    const name = upload.name || k("thePhoto");
    if (upload.tooLarge) {
      throw new ReaderRefusal(
        "payload_too_large",
        k("tooLarge", { name, max: String(MAX_UPLOAD_BYTES / 1024 / 1024) }),
      );
    }
    try {
      processed.push(await processPhoto(upload.bytes));
    } catch (error) {
      if (error instanceof AppError) {
        const why = error.extra.errors?.[0]?.message ?? error.message;
        throw new ReaderRefusal(error.code, photoRefusal(t, name, why));
      }
      throw error;
    }
  }
  const ids: string[] = [];
  for (const photo of processed) {
    try {
      ids.push((await storePhoto(ctx, settings, vendorId, orderId, photo)).id);
    } catch (error) {
      if (error instanceof AppError && error.code === "storage_quota_exceeded") {
        throw new ReaderRefusal(error.code, k("quota", { size: storageSize(t, settings.quotaBytes) }));
      }
      throw error;
    }
  }
  return ids;
}

/**
 * Why processPhoto refused a photo (its English sentence, src/modules/photos/photo-image.ts),
 * as a sentence in the member's language naming the photo.
 */
function photoRefusal(t: Translator, name: string, why: string): string {
  const k = (key: string, values: Record<string, string>) =>
    t.t(`dashboard.orders.photoErrors.${key}`, { name, ...values });
  if (why === "is empty") return k("empty", {});
  if (/^could not be read as an image/.test(why)) return k("damaged", {});
  const pixels = /^is (\d+)×(\d+) pixels, more than the (\d+) megapixels accepted$/.exec(why);
  if (pixels) return k("pixels", { width: pixels[1] ?? "", height: pixels[2] ?? "", max: pixels[3] ?? "" });
  const more = /^has more than the (\d+) megapixels accepted$/.exec(why);
  if (more) return k("megapixels", { max: more[1] ?? "" });
  const notPhoto = /^is (.*): send a photo \((.*)\)$/.exec(why);
  if (notPhoto) {
    const what = notPhoto[1] ?? "";
    const file = /^a (\w+) file$/.exec(what);
    const kind =
      what === "a PDF document"
        ? "pdf"
        : what === "a ZIP archive or office document"
          ? "zip"
          : what === "a text document (HTML, XML or SVG)"
            ? "text"
            : what === "an SVG drawing"
              ? "svg"
              : file
                ? "format"
                : "other";
    return k("notPhoto", { kind, format: file?.[1] ?? "", accepted: notPhoto[2] ?? "" });
  }
  return k("other", { why });
}

/** The quota as the service words it (2 GiB, 500 MiB), the number in the member's language. */
function storageSize(t: Translator, bytes: number): string {
  const [value, unit] = bytes >= 1024 ** 3 ? [bytes / 1024 ** 3, "GiB"] : [bytes / 1024 ** 2, "MiB"];
  const digits = unit === "GiB" ? 2 : 1;
  return `${t.number(value, { maximumFractionDigits: digits, useGrouping: false })} ${unit}`;
}

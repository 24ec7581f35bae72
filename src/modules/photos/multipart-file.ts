// Reading the one `file` part of a multipart upload (CONTRACT 12, Photos), bounded: at most
// MAX_UPLOAD_BYTES are buffered; past them the upload is refused with 413 while it streams,
// without reading the rest into memory. Every way a body can fail to hold a photo is a problem
// naming the field `file`, never a 500.
import type { MultipartFile } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";
import { MAX_UPLOAD_BYTES } from "./photo-image.ts";

export const FILE_FIELD = "file";
/** What a multipart body adds around the file: boundaries, part headers, a field or two. */
const ENVELOPE_BYTES = 64 * 1024;
const MB = MAX_UPLOAD_BYTES / 1024 / 1024;

export const tooLarge = () =>
  new AppError("payload_too_large", `The photo is larger than ${MB} MB`, {
    errors: [{ field: FILE_FIELD, message: `must be at most ${MB} MB` }],
  });

const missing = (message: string) =>
  new AppError("validation_failed", `${FILE_FIELD} ${message}`, { errors: [{ field: FILE_FIELD, message }] });

export const notMultipart = () =>
  new AppError("unsupported_media_type", "Send the photo as multipart/form-data with one part named file", {
    errors: [{ field: FILE_FIELD, message: "must be sent as multipart/form-data" }],
  });

/** A Content-Length that cannot fit MAX_UPLOAD_BYTES of photo is refused before a byte is read. */
export function assertDeclaredSize(request: FastifyRequest): void {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES + ENVELOPE_BYTES) throw tooLarge();
}

/** The multipart plugin's limits for one photo upload. */
export const uploadLimits = {
  fileSize: MAX_UPLOAD_BYTES,
  files: 1,
  fields: 10,
  fieldSize: 4096,
  parts: 12,
  headerPairs: 50,
};

/** The bytes of the part named `file`; a refusal naming the field when there is none or it is too large. */
export async function readFilePart(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw notMultipart();
  let part: MultipartFile | undefined;
  try {
    part = await request.file({ limits: uploadLimits, throwFileSizeLimit: true });
  } catch (error) {
    throw multipartRefusal(error);
  }
  if (!part) throw missing("is missing: send the photo in a multipart part named file");
  if (part.fieldname !== FILE_FIELD) {
    part.file.resume();
    throw missing(`is missing: the photo came in a part named ${JSON.stringify(part.fieldname)}`);
  }
  let bytes: Buffer;
  try {
    bytes = await part.toBuffer();
  } catch (error) {
    throw multipartRefusal(error);
  }
  // Busboy stops at fileSize and marks the stream: never a photo cut at 15 MB.
  if (part.file.truncated) throw tooLarge();
  return bytes;
}

/** @fastify/multipart's and busboy's errors as the API's problems. */
export function multipartRefusal(error: unknown): Error {
  if (error instanceof AppError) return error;
  const code = (error as { code?: string }).code ?? "";
  if (code === "FST_REQ_FILE_TOO_LARGE") return tooLarge();
  if (code === "FST_FILES_LIMIT") return missing("must be one part: send one photo per request");
  if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") {
    return missing("must come with few other parts: send the photo alone in a part named file");
  }
  if (code === "FST_INVALID_MULTIPART_CONTENT_TYPE") return notMultipart();
  // Busboy's own: a body that is not the multipart it says (no boundary, cut short).
  return missing("could not be read: the multipart body is malformed or cut short");
}

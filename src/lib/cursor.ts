// Opaque keyset cursors: base64url JSON of the sort key of the last row of a page. Clients must
// not parse them; a cursor that does not decode is a validation error naming `cursor`.
import { fieldError } from "../errors.ts";

export interface Cursor {
  t: string; // sort timestamp, ISO 8601
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.t, cursor.id]), "utf8").toString("base64url");
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { t: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw fieldError("validation_failed", "cursor", "is not a valid cursor");
}

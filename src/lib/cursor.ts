// Opaque keyset cursors: base64url JSON of the sort key of the last row of a page. Clients must
// not parse them; a cursor that does not decode is a validation error naming `cursor`.
import { fieldError } from "../errors.ts";

export interface Cursor {
  t: string; // sort timestamp, ISO 8601
  id: string;
  /** The sync horizon of the first page (sync-horizon.ts), so every page of a pass shares it. */
  h?: string | undefined;
}

/** Ids are CUID2: lowercase letters and digits (no NUL or other text the database would refuse). */
const ID_LIKE = /^[a-z0-9]{1,64}$/;

export function encodeCursor(cursor: Cursor): string {
  const parts = cursor.h ? [cursor.t, cursor.id, cursor.h] : [cursor.t, cursor.id];
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      (value.length === 2 || (value.length === 3 && typeof value[2] === "string")) &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      ID_LIKE.test(value[1])
    ) {
      // Normalized through Date, so the database only ever sees an ISO 8601 instant it can parse
      // (Date.parse accepts forms PostgreSQL refuses, e.g. "0"), never a client's raw text.
      const ms = Date.parse(value[0]);
      const year = new Date(ms).getUTCFullYear();
      const h = value.length === 3 ? Date.parse(value[2]) : undefined;
      const hYear = h === undefined ? 1 : new Date(h).getUTCFullYear();
      const hOk = h === undefined || (!Number.isNaN(h) && hYear >= 1 && hYear <= 9999);
      if (!Number.isNaN(ms) && year >= 1 && year <= 9999 && hOk)
        return {
          t: new Date(ms).toISOString(),
          id: value[1],
          h: h === undefined ? undefined : new Date(h).toISOString(),
        };
    }
  } catch {
    // fall through
  }
  throw fieldError("validation_failed", "cursor", "is not a valid cursor");
}

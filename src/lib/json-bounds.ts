// Bounds for free-form JSON objects a client stores with us (customer measurements and
// preferences): they are kept as given, so size and nesting are capped to keep rows, list pages
// and webhook payloads small, and to refuse pathological nesting early.
import { fieldError } from "../errors.ts";

export const FREE_FORM_MAX_BYTES = 16 * 1024;
export const FREE_FORM_MAX_DEPTH = 5;

/**
 * Nesting depth: `{}` is 1, `{ "a": { "b": 1 } }` is 2; arrays count as a level too. Stops
 * descending past `limit`, so a maliciously deep body cannot overflow the stack (that would be a 500).
 */
export function jsonDepth(value: unknown, limit = FREE_FORM_MAX_DEPTH + 1): number {
  if (value === null || typeof value !== "object") return 0;
  if (limit <= 0) return 1;
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const child of children) {
    const d = jsonDepth(child, limit - 1);
    if (d > deepest) deepest = d;
    if (deepest >= limit) break;
  }
  return 1 + deepest;
}

/** Throws validation_failed naming `field` when the object is too large or too deep. */
export function assertFreeFormObject(field: string, value: Record<string, unknown> | null | undefined): void {
  if (value === null || value === undefined) return;
  if (jsonDepth(value) > FREE_FORM_MAX_DEPTH) {
    throw fieldError("validation_failed", field, `must be nested at most ${FREE_FORM_MAX_DEPTH} levels deep`);
  }
  if (Buffer.byteLength(JSON.stringify(value), "utf8") > FREE_FORM_MAX_BYTES) {
    throw fieldError("validation_failed", field, `must be at most ${FREE_FORM_MAX_BYTES} bytes as JSON`);
  }
}

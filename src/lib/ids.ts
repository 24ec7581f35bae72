import { createId, isCuid } from "@paralleldrive/cuid2";

export const newId = (): string => createId();

/** Ids are CUID2 (CONTRACT 1); anything else cannot exist, so callers answer 404 without a query. */
export const isId = (value: string): boolean => value.length <= 32 && isCuid(value);

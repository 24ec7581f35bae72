import { isCuid } from "@paralleldrive/cuid2";
import { secureRandomByte } from "./random.ts";

// Ids have the CUID2 shape (CONTRACT 1): a lowercase letter, then 23 lowercase letters or digits,
// 24 characters like cuid2's default. They are drawn straight from the CSPRNG (about 120 bits, so
// unguessable and collision-free in practice) instead of through cuid2's SHA-3 mixing, which
// measured ~28 µs an id: an order create needs four.
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A uniform integer in [0, n) (n <= 256), rejecting the bytes that would bias the modulo. */
function uniform(n: number): number {
  const limit = 256 - (256 % n);
  for (;;) {
    const byte = secureRandomByte();
    if (byte < limit) return byte % n;
  }
}

export function newId(): string {
  let id = ALPHABET[10 + uniform(26)] as string;
  for (let i = 1; i < 24; i++) id += ALPHABET[uniform(36)];
  return id;
}

/** Ids are CUID2 (CONTRACT 1); anything else cannot exist, so callers answer 404 without a query. */
export const isId = (value: string): boolean => value.length <= 32 && isCuid(value);

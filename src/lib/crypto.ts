import { createHash, timingSafeEqual } from "node:crypto";
import { secureRandomBytes } from "./random.ts";

/** A secret of `bytes` random bytes, base64url, with a recognisable prefix (vk_, vat_, …). */
export function generateSecret(prefix: string, bytes = 32): string {
  return `${prefix}${secureRandomBytes(bytes).toString("base64url")}`;
}

/**
 * Secrets we issue carry 256 bits of entropy, so a fast hash is enough to make a stolen table
 * useless; passwords, which are low-entropy, use scrypt instead (see passwords.ts).
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

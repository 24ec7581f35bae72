// Signatures of a delivery (CONTRACT 7, CONTRACT 12, spec 6.2). Two schemes over the same exact
// body bytes:
// - X-Service-Signature: lowercase hex HMAC-SHA256 of the body, keyed with the secret's UTF-8 bytes
//   (the whole string, prefix included), for every kind of secret.
// - Standard Webhooks (https://www.standardwebhooks.com/): webhook-signature is
//   `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, space-separated when
//   several secrets are valid (rotation overlap). Its key depends on the secret's kind, which the
//   stored secret names by its prefix (secrets are stored as issued: the signer needs the key):
//   - `whsec_<base64 of 32 random bytes>` (made since CONTRACT 12): the base64-decoded bytes, as
//     the spec and its libraries (`standardwebhooks`, `svix`) key it.
//   - `whsk_<base64url>` (made before): the secret's UTF-8 bytes, prefix included, exactly as
//     before, until the endpoint's secret is rotated (docs/decisions/0012).
import { createHmac, randomBytes } from "node:crypto";

/** The prefix of every secret made now (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** The prefix of secrets made before CONTRACT 12; they keep their keying until rotated. */
export const LEGACY_WEBHOOK_SECRET_PREFIX = "whsk_";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** How a secret keys webhook-signature: its decoded bytes (Standard Webhooks) or its UTF-8 (legacy). */
export type SecretKind = "standard" | "legacy";

export function secretKind(secret: string): SecretKind {
  return secret.startsWith(WEBHOOK_SECRET_PREFIX) ? "standard" : "legacy";
}

/** The HMAC key of webhook-signature for `secret` (see the top of this file). */
export function standardSigningKey(secret: string): Buffer {
  return secretKind(secret) === "standard"
    ? Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64")
    : Buffer.from(secret, "utf8");
}

export function hexSignature(secret: string, body: string | Buffer): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex");
}

export function standardSignature(secret: string, msgId: string, timestamp: number, body: string | Buffer) {
  const mac = createHmac("sha256", standardSigningKey(secret));
  mac.update(`${msgId}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

export interface SigningSecrets {
  current: string;
  /** The rotated-out secret while its overlap lasts. */
  previous?: string | undefined;
}

export interface SignedHeaders {
  "x-service-signature": string;
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * During a rotation overlap the old secret keeps signing X-Service-Signature (receivers that
 * have not switched keep working), and webhook-signature carries both signatures, new first,
 * each keyed by its own secret's kind.
 */
export function signDelivery(
  secrets: SigningSecrets,
  msgId: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const keys = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  return {
    "x-service-signature": hexSignature(secrets.previous ?? secrets.current, body),
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": keys.map((k) => standardSignature(k, msgId, timestampSeconds, body)).join(" "),
  };
}

// Signatures of a delivery (CONTRACT 7, spec 6.2). Two schemes over the same exact body bytes:
// - X-Service-Signature: lowercase hex HMAC-SHA256 of the body, keyed with the secret's UTF-8 bytes.
// - Standard Webhooks (https://www.standardwebhooks.com/): webhook-signature is
//   `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, space-separated when
//   several secrets are valid (rotation overlap). The key is the same secret's UTF-8 bytes.
import { createHmac, randomBytes } from "node:crypto";

export const WEBHOOK_SECRET_PREFIX = "whsk_";

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}

export function hexSignature(secret: string, body: string | Buffer): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex");
}

export function standardSignature(secret: string, msgId: string, timestamp: number, body: string | Buffer) {
  const mac = createHmac("sha256", Buffer.from(secret, "utf8"));
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
 * have not switched keep working), and webhook-signature carries both signatures, new first.
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

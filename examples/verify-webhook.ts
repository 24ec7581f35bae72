// A minimal vendor-api webhook receiver in plain Node (no dependencies). Run it with
//   WEBHOOK_SECRET=whsec_... PORT=4000 npx tsx examples/verify-webhook.ts
// and, during a secret rotation's overlap, with both secrets, new first:
//   WEBHOOK_SECRET="whsec_new... whsec_old..." PORT=4000 npx tsx examples/verify-webhook.ts
// Rules it shows (README and the webhooks guide, "Verifying a delivery"):
//   1. Verify `webhook-signature` (Standard Webhooks) over the RAW body bytes, before any JSON
//      parsing. It lists one signature per valid secret, so during a rotation's overlap a delivery
//      verifies with the old secret, the new one, or both: switch whenever you like.
//   2. Compare signatures in constant time (crypto.timingSafeEqual).
//   3. Reject a webhook-timestamp more than 5 minutes away from now (replay protection).
//   4. Answer 2xx quickly; de-duplicate on the event id, `webhook-id` (retries repeat it, and so
//      does a redelivery or a recovery, under a new delivery id).
// X-Service-Signature, the older header, is not checked: it signs the body alone (no id, no
// timestamp) and, during an overlap, with the OLD secret only (verifyServiceSignature below is
// for receivers built on it; they switch to the new secret when the overlap ends).
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

export const TOLERANCE_SECONDS = 5 * 60;

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The HMAC key of webhook-signature: for a `whsec_` secret the base64-decoded bytes after the
 * prefix (the Standard Webhooks rule); for a `whsk_` secret (made before whsec_ existed, until it
 * is rotated) the secret's own UTF-8 bytes, prefix included.
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith("whsec_")
    ? Buffer.from(secret.slice("whsec_".length), "base64")
    : Buffer.from(secret, "utf8");
}

/**
 * Standard Webhooks: HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>", base64, in
 * webhook-signature as "v1,<sig>" (several, space-separated, while a secret rotation overlaps).
 * `secrets`: yours, or both during an overlap; any listed signature made by any of them verifies.
 */
export function verifyStandardWebhook(
  secrets: string | readonly string[],
  rawBody: Buffer,
  headers: http.IncomingHttpHeaders,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  const ts = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - ts) > TOLERANCE_SECONDS) return false;
  const offered = signatures.split(" ");
  return (typeof secrets === "string" ? [secrets] : secrets).some((secret) => {
    const mac = createHmac("sha256", signingKey(secret));
    mac.update(`${id}.${timestamp}.`);
    mac.update(rawBody);
    const expected = `v1,${mac.digest("base64")}`;
    return offered.some((candidate) => safeEqual(expected, candidate));
  });
}

/**
 * X-Service-Signature (not checked by this receiver): lowercase hex HMAC-SHA256 of the raw body,
 * keyed with the secret's UTF-8 bytes (any kind, prefix included); during an overlap it is made
 * with the old secret only.
 */
export function verifyServiceSignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(rawBody).digest("hex");
  return safeEqual(expected, header);
}

export interface ReceivedEvent {
  deliveryId: string;
  event: { id: string; event: string; data: Record<string, unknown>; timestamp: string };
}

/**
 * An HTTP receiver that accepts only verified deliveries and hands each event over once.
 * `secrets`: the endpoint's secret, or during a rotation both (either alone works as well).
 */
export function createReceiver(
  secrets: string | readonly string[],
  onEvent: (received: ReceivedEvent) => void,
): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      if (!verifyStandardWebhook(secrets, rawBody, req.headers)) {
        res.writeHead(401).end("invalid signature");
        return;
      }
      // The event id, signed in webhook-signature: the same on every attempt and every delivery of
      // the event (X-Service-Delivery differs between a delivery and its redelivery).
      const eventId = String(req.headers["webhook-id"]);
      if (!seen.has(eventId)) {
        seen.add(eventId);
        onEvent({
          deliveryId: String(req.headers["x-service-delivery"]),
          event: JSON.parse(rawBody.toString("utf8")),
        });
      }
      res.writeHead(204).end();
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secrets = (process.env.WEBHOOK_SECRET ?? "").split(/\s+/).filter(Boolean);
  if (secrets.length === 0) throw new Error("set WEBHOOK_SECRET (two, space-separated, during a rotation)");
  const port = Number(process.env.PORT ?? 4000);
  createReceiver(secrets, ({ deliveryId, event }) => {
    console.log(deliveryId, event.event, JSON.stringify(event.data));
  }).listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}`));
}

// A minimal vendor-api webhook receiver in plain Node (no dependencies). Run it with
//   WEBHOOK_SECRET=whsk_... PORT=4000 npx tsx examples/verify-webhook.ts
// Rules it shows (README, "Verifying a delivery"):
//   1. Verify the signature over the RAW body bytes, before any JSON parsing.
//   2. Compare signatures in constant time (crypto.timingSafeEqual).
//   3. Reject a webhook-timestamp more than 5 minutes away from now (replay protection).
//   4. Answer 2xx quickly; de-duplicate on the event id, `webhook-id` (retries repeat it, and so
//      does a redelivery or a recovery, under a new delivery id).
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

export const TOLERANCE_SECONDS = 5 * 60;

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** X-Service-Signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret. */
export function verifyServiceSignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest("hex");
  return safeEqual(expected, header);
}

/**
 * Standard Webhooks: HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>", base64, in
 * webhook-signature as "v1,<sig>" (several, space-separated, while a secret rotation overlaps).
 */
export function verifyStandardWebhook(
  secret: string,
  rawBody: Buffer,
  headers: http.IncomingHttpHeaders,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > TOLERANCE_SECONDS) return false;
  const mac = createHmac("sha256", secret);
  mac.update(`${id}.${timestamp}.`);
  mac.update(rawBody);
  const expected = `v1,${mac.digest("base64")}`;
  return signatures.split(" ").some((candidate) => safeEqual(expected, candidate));
}

export interface ReceivedEvent {
  deliveryId: string;
  event: { id: string; event: string; data: Record<string, unknown>; timestamp: string };
}

/** An HTTP receiver that accepts only verified deliveries and hands each event over once. */
export function createReceiver(secret: string, onEvent: (received: ReceivedEvent) => void): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const ok =
        verifyStandardWebhook(secret, rawBody, req.headers) &&
        verifyServiceSignature(secret, rawBody, req.headers["x-service-signature"] as string | undefined);
      if (!ok) {
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
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error("set WEBHOOK_SECRET");
  const port = Number(process.env.PORT ?? 4000);
  createReceiver(secret, ({ deliveryId, event }) => {
    console.log(deliveryId, event.event, JSON.stringify(event.data));
  }).listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}`));
}

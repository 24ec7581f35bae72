// CONTRACT 12 "Webhooks": secrets are `whsec_` + base64 of 32 random bytes and webhook-signature is
// keyed with the decoded bytes, so the official Standard Webhooks libraries (`standardwebhooks`,
// `svix`) verify real deliveries with their default options: before a rotation, during its overlap
// (a receiver on the old secret and one on the new both accept) and after it (only the new). The
// example receiver and the client's verifyWebhook follow the same rule (one rule for receivers).
import { sql } from "drizzle-orm";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../clients/typescript/src/index.ts";
import { createReceiver, type ReceivedEvent, verifyStandardWebhook } from "../../examples/verify-webhook.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually, type ReceivedRequest } from "../helpers/webhook-receiver.ts";

const fixture = useDeliveryFixture();
const { receiver, register, createOrder, deliveries } = fixture;
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

/**
 * What each official library says of a request with `secret`, default options; and the example
 * receiver and the client's verifyWebhook, which must say the same.
 */
function libraries(secret: string, req: ReceivedRequest) {
  const headers = req.headers as Record<string, string>;
  const outcome = (verify: () => unknown) => {
    try {
      verify();
      return "verified";
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  };
  return {
    standardwebhooks: outcome(() =>
      new StandardWebhook(secret).verify(req.rawBody.toString("utf8"), headers),
    ),
    svix: outcome(() => new SvixWebhook(secret).verify(req.rawBody.toString("utf8"), headers)),
    example: verifyStandardWebhook(secret, req.rawBody, req.headers) ? "verified" : "refused",
    client: outcome(() => verifyWebhook(secret, req.rawBody, headers)),
  };
}
const BOTH = { standardwebhooks: "verified", svix: "verified", example: "verified", client: "verified" };
const refusedByAll = (said: ReturnType<typeof libraries>) =>
  Object.values(said).every((outcome) => outcome.startsWith("refused"));

describe("Standard Webhooks secrets", () => {
  it("a new secret is whsec_ and the base64 of 32 random bytes", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const a = await register(key, r.url, ["order.created"]);
    const b = await register(key, r.url, ["order.created"]);
    for (const secret of [a.secret, b.secret]) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    }
    expect(a.secret).not.toBe(b.secret);
    const rotated = await t.api.post(`/api/vendor/webhooks/${a.id}/rotate-secret`, {}, { key });
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("standardwebhooks and svix verify real deliveries before, during and after a rotation", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    // The receiver verifies with the secret it holds now, as an integrator's would, and answers
    // 401 when either library refuses.
    let held = "";
    const r = await receiver((req) => {
      const said = libraries(held, req);
      return { status: Object.values(said).every((o) => o === "verified") ? 204 : 401 };
    });
    const hook = await register(key, r.url, ["order.created"]);
    const old = hook.secret;
    held = old;

    // Before: one secret, one signature.
    await createOrder(key);
    const [before] = await r.waitFor(1);
    if (!before) throw new Error("no delivery");
    expect(String(before.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(libraries(old, before)).toEqual(BOTH);
    const stranger = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect(refusedByAll(libraries(stranger, before))).toBe(true);

    // During the overlap: both signatures; a receiver still on the old secret and one already on
    // the new verify the same delivery.
    const rotated = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/rotate-secret`,
      { overlapSeconds: 3600 },
      { key },
    );
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    await createOrder(key);
    const [, during] = await r.waitFor(2);
    if (!during) throw new Error("no delivery");
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(libraries(old, during)).toEqual(BOTH);
    expect(libraries(fresh, during)).toEqual(BOTH);
    held = fresh;
    await createOrder(key);
    const [, , switched] = await r.waitFor(3);
    if (!switched) throw new Error("no delivery");
    expect(libraries(fresh, switched)).toEqual(BOTH);

    // After: the overlap ends as the hour would end it. The dispatcher runs on the database's
    // clock (README "One clock"), which a test cannot move, so the end is moved to now instead.
    await t.database.db.execute(
      sql`update webhooks set previous_secret_expires_at = now() - interval '1 second' where id = ${hook.id}`,
    );
    await createOrder(key);
    const [, , , after] = await r.waitFor(4);
    if (!after) throw new Error("no delivery");
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(libraries(fresh, after)).toEqual(BOTH);
    expect(refusedByAll(libraries(old, after))).toBe(true);

    // Every delivery was accepted by the receiver's libraries at its first attempt.
    await deliveriesSettled(t, vendor.id);
    const log = await deliveries(key, hook.id);
    expect(log).toHaveLength(4);
    expect(log.map((d) => d.attempts.map((a: { statusCode: number }) => a.statusCode))).toEqual([
      [204],
      [204],
      [204],
      [204],
    ]);
  });

  it("the example receiver accepts every delivery of a rotation, on the old secret, the new, or both", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const port = await freePort();
    const hook = await register(key, `http://127.0.0.1:${port}/hook`, ["order.created"]);
    const got: ReceivedEvent[] = [];
    let server = createReceiver(hook.secret, (e) => got.push(e));
    const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    const close = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    /** Restarts the example on the same port with other secrets, as its operator would. */
    const switchTo = async (secrets: string | string[]) => {
      await close();
      server = createReceiver(secrets, (e) => got.push(e));
      await listen();
    };
    await listen();
    try {
      const send = async (n: number) => {
        expect((await createOrder(key)).status).toBe(201);
        await eventually(async () => got.length === n);
      };
      await send(1);
      const rotated = await t.api.post(
        `/api/vendor/webhooks/${hook.id}/rotate-secret`,
        { overlapSeconds: 3600 },
        { key },
      );
      const fresh = rotated.body.secret as string;
      await send(2); // still on the old secret
      await switchTo(fresh);
      await send(3); // switched during the overlap (this answered 401 when X-Service-Signature was checked)
      await switchTo([fresh, hook.secret]);
      await send(4); // both
      await t.database.db.execute(
        sql`update webhooks set previous_secret_expires_at = now() - interval '1 second' where id = ${hook.id}`,
      );
      await switchTo(fresh);
      await send(5); // after the overlap
      await deliveriesSettled(t, vendor.id);
      const log = await deliveries(key, hook.id);
      expect(log.map((d) => d.attempts.map((a: { statusCode: number }) => a.statusCode))).toEqual([
        [204],
        [204],
        [204],
        [204],
        [204],
      ]);
      // And it still refuses what no secret of the webhook signed.
      await switchTo(hook.secret);
      expect((await createOrder(key)).status).toBe(201);
      await eventually(async () => {
        const [latest] = await deliveries(key, hook.id);
        return latest?.attempts[0]?.statusCode === 401;
      });
      expect(got).toHaveLength(5);
    } finally {
      await close();
    }
  });
});

// CONTRACT 12 "Webhooks": secrets made before `whsec_` secrets existed (`whsk_…`, keyed with their
// UTF-8 bytes in both signature headers) keep that keying after every migration since, until the
// endpoint rotates its secret: no receiver breaks on upgrade. A database migrated as the release
// before held it, a webhook written as that release's code wrote it, then the rest of the
// migrations and a real delivery. PGlite, or PostgreSQL when TEST_DATABASE_URL is set.
import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, expect, it } from "vitest";
import { verifyServiceSignature, verifyStandardWebhook } from "../../examples/verify-webhook.ts";
import { startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { createKey } from "../helpers/factories.ts";
import { MIGRATIONS, migrationsThrough, openMigratingDatabase } from "../helpers/migrations.ts";
import { startTestApp } from "../helpers/test-app.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

/** The last migration of the release whose code made `whsk_` secrets. */
const RELEASE_BEFORE = "0029_order_numbers_external_ids";

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** webhook-signature as the release before computed it: keyed with the secret's UTF-8 bytes. */
function legacySignature(secret: string, id: string, timestamp: string, body: Buffer): string {
  const mac = createHmac("sha256", Buffer.from(secret, "utf8"));
  return `v1,${mac.update(`${id}.${timestamp}.`).update(body).digest("base64")}`;
}

it("a whsk_ secret made before still signs as before after migrating, and until its rotation's overlap ends", async () => {
  const db = await openMigratingDatabase(cleanup);
  const before = migrationsThrough(RELEASE_BEFORE);
  cleanup.push(() => fs.rmSync(before, { recursive: true, force: true }));
  await db.migrate(before);

  const receiver = await startReceiver(() => ({ status: 204 }));
  cleanup.push(() => receiver.close());
  // As the release before's generateWebhookSecret made it and its repository stored it.
  const legacy = `whsk_${randomBytes(32).toString("base64url")}`;
  await db.query(
    `insert into vendors (id, name, email, created_at, updated_at)
       values ('shoplegacyaaaaaaaaaaaaaa', 'Legacy Bridal', 'legacy@old.example', now(), now())`,
  );
  await db.query(
    `insert into webhooks (id, vendor_id, url, events, status, secret, created_at, updated_at)
       values ('hooklegacyaaaaaaaaaaaaaa', 'shoplegacyaaaaaaaaaaaaaa', $1, '["order.created"]', 'ACTIVE', $2, now(), now())`,
    [receiver.url, legacy],
  );

  await db.migrate(MIGRATIONS);

  const t = await startTestApp({
    database: await db.appDatabase(),
    env: { WEBHOOK_RETRY_DELAYS_MS: "50,100,150", WEBHOOK_TIMEOUT_MS: "2000" },
  });
  const dispatcher = await startDispatcher({ config: t.config, database: t.database });
  try {
    const key = await createKey(t.ctx, "shoplegacyaaaaaaaaaaaaaa");
    const order = () =>
      t.api.post("/api/vendor/orders", { customerName: "Maria Silva", type: "BRIDAL_DRESS" }, { key });

    expect((await order()).status).toBe(201);
    const [first] = await receiver.waitFor(1);
    if (!first) throw new Error("no delivery");
    const id = String(first.headers["webhook-id"]);
    const ts = String(first.headers["webhook-timestamp"]);
    // Both headers exactly as the release before made them.
    expect(first.headers["webhook-signature"]).toBe(legacySignature(legacy, id, ts, first.rawBody));
    expect(first.headers["x-service-signature"]).toBe(
      createHmac("sha256", Buffer.from(legacy, "utf8")).update(first.rawBody).digest("hex"),
    );
    // So the receivers of then keep verifying: the raw-key library setup and the example.
    expect(() =>
      new StandardWebhook(legacy, { format: "raw" }).verify(
        first.rawBody.toString("utf8"),
        first.headers as Record<string, string>,
      ),
    ).not.toThrow();
    expect(verifyStandardWebhook(legacy, first.rawBody, first.headers)).toBe(true);

    // Its rotation gives a whsec_ secret; during the overlap each signature keeps its own keying.
    const rotated = await t.api.post(
      "/api/vendor/webhooks/hooklegacyaaaaaaaaaaaaaa/rotate-secret",
      { overlapSeconds: 3600 },
      { key },
    );
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect((await order()).status).toBe(201);
    const [, during] = await receiver.waitFor(2);
    if (!during) throw new Error("no delivery");
    const signatures = String(during.headers["webhook-signature"]).split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures[1]).toBe(
      legacySignature(
        legacy,
        String(during.headers["webhook-id"]),
        String(during.headers["webhook-timestamp"]),
        during.rawBody,
      ),
    );
    expect(() =>
      new StandardWebhook(fresh).verify(
        during.rawBody.toString("utf8"),
        during.headers as Record<string, string>,
      ),
    ).not.toThrow();
    expect(verifyStandardWebhook(legacy, during.rawBody, during.headers)).toBe(true);
    expect(verifyStandardWebhook(fresh, during.rawBody, during.headers)).toBe(true);
    expect(
      verifyServiceSignature(legacy, during.rawBody, during.headers["x-service-signature"] as string),
    ).toBe(true);
  } finally {
    await dispatcher.stop(1_000);
    await t.close();
  }
}, 120_000);

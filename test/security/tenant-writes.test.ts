// Repository writes on vendor-owned rows state their tenant (STYLE 3): called with another
// vendor's id they change nothing, even when a caller forgot to look the row up first.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  dashboardSessions,
  events,
  oauthAccessTokens,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from "../../src/db/schema/index.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { newId } from "../../src/lib/ids.ts";
import { listApiKeys, touchApiKey } from "../../src/modules/api-keys/api-keys.repository.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import {
  deleteAppointmentRow,
  findAppointmentById,
  updateAppointmentRow,
} from "../../src/modules/appointments/appointments.repository.ts";
import { createAppointment } from "../../src/modules/appointments/appointments.service.ts";
import {
  consumeCode,
  insertAccessToken,
  insertCode,
  insertGrant,
  insertRefreshToken,
  linkCodeToGrant,
  markRefreshTokenRotated,
  revokeAccessToken,
  revokeGrant,
} from "../../src/modules/connections/oauth.repository.ts";
import { findCustomerById, updateCustomerRow } from "../../src/modules/customers/customers.repository.ts";
import { createCustomer } from "../../src/modules/customers/customers.service.ts";
import {
  deleteSessionRow,
  insertSession,
  setPendingSecret,
  takePendingSecret,
} from "../../src/modules/sessions/sessions.repository.ts";
import { type AttemptRecord, recordAttempt } from "../../src/webhook-delivery/attempts.repository.ts";
import { DEFAULT_AUTO_DISABLE } from "../../src/webhook-delivery/auto-disable.ts";
import { createVendor } from "../helpers/factories.ts";
import { createClient } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("repository writes with another vendor's id change nothing", () => {
  it("api keys: last-use bookkeeping", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const { row } = await createApiKey(t.ctx, { vendorId: owner.id, name: "k" });
    await touchApiKey(t.ctx.db, other.id, row.id, new Date());
    const [key] = await listApiKeys(t.ctx.db, owner.id);
    expect(key?.lastUsedAt).toBeNull();
  });

  it("customers: update", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const customer = await createCustomer(t.ctx, owner.id, { name: "Ana" });
    await expect(updateCustomerRow(t.ctx.db, other.id, customer.id, { name: "Taken" })).rejects.toThrow();
    expect((await findCustomerById(t.ctx.db, owner.id, customer.id))?.name).toBe("Ana");
  });

  it("appointments: update and delete", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const customer = await createCustomer(t.ctx, owner.id, { name: "Ana" });
    const appointment = await createAppointment(t.ctx, owner.id, {
      customerId: customer.id,
      type: "FITTING",
      date: "2027-03-01T10:00:00.000Z",
      duration: 60,
    });
    await expect(
      updateAppointmentRow(t.ctx.db, other.id, appointment.id, { notes: "moved" }),
    ).rejects.toThrow();
    await deleteAppointmentRow(t.ctx.db, other.id, appointment.id);
    const still = await findAppointmentById(t.ctx.db, owner.id, appointment.id);
    expect(still?.id).toBe(appointment.id);
    expect(still?.notes ?? null).toBe(appointment.notes ?? null);
  });
});

/** A vendor with one of everything OAuth and sign-in store: grant, code, tokens, session. */
async function oauthAndSessionRows(vendorId: string, memberId: string) {
  const { application } = await createClient(t.ctx);
  const now = new Date();
  const later = new Date(now.getTime() + 3_600_000);
  const ids = { grant: newId(), code: newId(), access: newId(), refresh: newId(), session: newId() };
  const codeHash = hashSecret(`code-${ids.code}`);
  await insertGrant(t.ctx.db, {
    id: ids.grant,
    applicationId: application.id,
    vendorId,
    scopes: ["orders:read"],
    createdAt: now,
  });
  await insertCode(t.ctx.db, {
    id: ids.code,
    codeHash,
    applicationId: application.id,
    vendorId,
    redirectUri: "https://client.example/callback",
    scopes: ["orders:read"],
    codeChallenge: "x",
    createdAt: now,
    expiresAt: later,
  });
  const token = { grantId: ids.grant, scopes: ["orders:read"], createdAt: now, expiresAt: later };
  await insertAccessToken(t.ctx.db, { id: ids.access, tokenHash: hashSecret(`a-${ids.access}`), ...token });
  await insertRefreshToken(t.ctx.db, {
    id: ids.refresh,
    tokenHash: hashSecret(`r-${ids.refresh}`),
    ...token,
  });
  await insertSession(t.ctx.db, {
    id: ids.session,
    tokenHash: hashSecret(`s-${ids.session}`),
    vendorId,
    memberId,
    createdAt: now,
    expiresAt: later,
    pendingSecret: "sealed",
  });
  return { ...ids, codeHash };
}

type Rows = Awaited<ReturnType<typeof oauthAndSessionRows>>;

/** Everything a write below could change, read straight from the tables. */
async function snapshot(rows: Rows) {
  const one = async <T>(q: Promise<T[]>) => (await q)[0];
  const db = t.ctx.db;
  return {
    grant: await one(db.select().from(oauthGrants).where(eq(oauthGrants.id, rows.grant))),
    code: await one(db.select().from(oauthCodes).where(eq(oauthCodes.id, rows.code))),
    access: await one(db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.id, rows.access))),
    refresh: await one(db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.id, rows.refresh))),
    session: await one(db.select().from(dashboardSessions).where(eq(dashboardSessions.id, rows.session))),
  };
}

describe("OAuth and session writes with another vendor's id change nothing", () => {
  const at = new Date();
  const writes: Array<[string, (vendorId: string, rows: Rows) => Promise<unknown>]> = [
    ["revokeGrant", (v, r) => revokeGrant(t.ctx.db, v, r.grant, at)],
    ["consumeCode", (v, r) => consumeCode(t.ctx.db, v, r.codeHash, at)],
    ["linkCodeToGrant", (v, r) => linkCodeToGrant(t.ctx.db, v, r.code, r.grant)],
    ["revokeAccessToken", (v, r) => revokeAccessToken(t.ctx.db, v, r.access, at)],
    ["markRefreshTokenRotated", (v, r) => markRefreshTokenRotated(t.ctx.db, v, r.refresh, at)],
    ["setPendingSecret", (v, r) => setPendingSecret(t.ctx.db, v, r.session, "replaced")],
    ["takePendingSecret", (v, r) => takePendingSecret(t.ctx.db, v, r.session)],
    ["deleteSessionRow", (v, r) => deleteSessionRow(t.ctx.db, v, r.session)],
  ];

  it.each(writes)("%s: another vendor's id changes nothing, the owner's id does", async (_name, write) => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const rows = await oauthAndSessionRows(owner.id, owner.ownerId);
    const before = await snapshot(rows);
    expect(before.session?.pendingSecret).toBe("sealed");
    await write(other.id, rows);
    expect(await snapshot(rows)).toEqual(before);
    // The same call with the owner's id does change something, so the test above can fail.
    await write(owner.id, rows);
    expect(await snapshot(rows)).not.toEqual(before);
  });
});

/** A webhook with one delivery in flight (claimed with `claimToken`), written straight to the tables. */
async function claimedDelivery(vendorId: string) {
  const now = new Date();
  const ids = { webhook: newId(), event: newId(), delivery: newId(), claimToken: newId() };
  await t.ctx.db.insert(webhooks).values({
    id: ids.webhook,
    vendorId,
    url: "https://receiver.example/hooks",
    events: ["customer.created"],
    status: "ACTIVE",
    secret: "whsec_test",
    createdAt: now,
    updatedAt: now,
  });
  await t.ctx.db
    .insert(events)
    .values({ id: ids.event, vendorId, type: "customer.created", data: {}, createdAt: now });
  await t.ctx.db.insert(webhookDeliveries).values({
    id: ids.delivery,
    webhookId: ids.webhook,
    vendorId,
    eventId: ids.event,
    eventType: "customer.created",
    status: "PENDING",
    nextAttemptAt: now,
    claimToken: ids.claimToken,
    createdAt: now,
    updatedAt: now,
  });
  return ids;
}

describe("the dispatcher's attempt records with another vendor's id change nothing", () => {
  const answers: Array<[string, Partial<AttemptRecord>]> = [
    ["a success (one statement)", { statusCode: 200, outcome: { status: "SUCCEEDED" }, health: "ok" }],
    [
      "a failure to retry (one statement)",
      { statusCode: 500, outcome: { status: "PENDING", nextAttemptAt: new Date() }, health: "failing" },
    ],
    [
      "a 410 that disables the webhook (transaction)",
      { statusCode: 410, outcome: { status: "FAILED" }, disableReason: "410 Gone", health: "neutral" },
    ],
  ];

  it.each(answers)("%s", async (_name, answer) => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const ids = await claimedDelivery(owner.id);
    const db = t.ctx.db;
    const snapshot = async () => ({
      delivery: (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, ids.delivery)))[0],
      webhook: (await db.select().from(webhooks).where(eq(webhooks.id, ids.webhook)))[0],
      attempts: await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, ids.delivery)),
    });
    const record = (vendorId: string): AttemptRecord => ({
      vendorId,
      deliveryId: ids.delivery,
      claimToken: ids.claimToken,
      webhookId: ids.webhook,
      attempt: 1,
      at: new Date(),
      statusCode: undefined,
      durationMs: 5,
      error: undefined,
      responseBody: undefined,
      outcome: { status: "SUCCEEDED" },
      ...answer,
    });
    const before = await snapshot();
    expect(await recordAttempt(db, record(other.id), DEFAULT_AUTO_DISABLE)).toMatchObject({
      recorded: false,
    });
    expect(await snapshot()).toEqual(before);
    expect(await recordAttempt(db, record(owner.id), DEFAULT_AUTO_DISABLE)).toMatchObject({ recorded: true });
    const after = await snapshot();
    expect(after.delivery?.status).toBe(answer.outcome?.status);
    expect(after.attempts).toHaveLength(1);
  });
});

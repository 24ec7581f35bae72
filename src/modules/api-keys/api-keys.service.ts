import type { Principal } from "../../auth/principal.ts";
import { allScopes, isScope, type Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { fieldError } from "../../errors.ts";
import { generateSecret, hashSecret, safeEqual } from "../../lib/crypto.ts";
import { isId, newId } from "../../lib/ids.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { ensureSandbox } from "../sandbox/sandbox.service.ts";
import { type ApiKeyJson, presentApiKey } from "./api-keys.presenter.ts";
import {
  type ApiKeyRow,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys as listApiKeyRows,
  revokeApiKey as revokeApiKeyRow,
  touchApiKey,
} from "./api-keys.repository.ts";
import { forgetApiKey, type VerifiedKeys } from "./verified-keys.ts";

export const API_KEY_PREFIX = "vk_";
/** A test key's prefix: it acts for the shop's sandbox (CONTRACT 11), never for live data. */
export const TEST_API_KEY_PREFIX = "vk_test_";
// Recording every use would turn each read into a write; once a minute is enough to show it.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * When this process last recorded each key's use (key id → ms), bounded. The row read for a
 * request does not show a use whose write is still in flight (or, with API_KEY_CACHE_SECONDS=0,
 * one recorded a moment ago by this process), so without it every request until that write
 * commits recorded the use again: more writes exactly when the database is slow.
 */
const recordedUse = new Map<string, number>();
const MAX_RECORDED_USES = 10_000;

function useToRecord(id: string, lastUsedMs: number | null, nowMs: number): boolean {
  const last = Math.max(
    lastUsedMs ?? Number.NEGATIVE_INFINITY,
    recordedUse.get(id) ?? Number.NEGATIVE_INFINITY,
  );
  if (nowMs - last <= LAST_USED_RESOLUTION_MS) return false;
  recordedUse.delete(id); // re-inserted last: the map stays in order of recording
  if (recordedUse.size >= MAX_RECORDED_USES) {
    const oldest = recordedUse.keys().next().value;
    if (oldest !== undefined) recordedUse.delete(oldest);
  }
  recordedUse.set(id, nowMs);
  return true;
}

export interface CreateApiKeyInput {
  vendorId: string;
  name: string;
  scopes?: string[] | undefined;
  /** A test key (`vk_test_…`) for the shop's sandbox, made on the first one. */
  test?: boolean | undefined;
}

export async function createApiKey(
  ctx: ServiceContext,
  input: CreateApiKeyInput,
): Promise<{ row: ApiKeyRow; key: string }> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw fieldError("validation_failed", "name", "must be 1-100 characters");
  let scopes: Scope[] | null = null;
  if (input.scopes && input.scopes.length > 0) {
    const unknown = input.scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) {
      throw fieldError(
        "validation_failed",
        "scope",
        `unknown scope ${unknown.join(", ")}; known: ${allScopes.join(", ")}`,
      );
    }
    scopes = [...new Set(input.scopes as Scope[])];
  }
  // A test key belongs to the sandbox, so it authenticates as the sandbox with no lookup of its own.
  const vendorId = input.test ? (await ensureSandbox(ctx, input.vendorId)).id : input.vendorId;
  const key = input.test ? generateSecret(TEST_API_KEY_PREFIX, 32) : liveKey();
  const row = await ctx.db.transaction(async (tx) => {
    const inserted = await insertApiKey(tx, {
      id: newId(),
      vendorId,
      name,
      keyHash: hashSecret(key),
      // Enough of the key to tell keys apart in the dashboard: `vk_` or `vk_test_` and 7 more.
      keyPrefix: key.slice(0, (input.test ? TEST_API_KEY_PREFIX : API_KEY_PREFIX).length + 7),
      scopes,
      createdAt: ctx.now(),
    });
    // The shop's log says it made a key, a test key too (which acts in the shop's sandbox).
    await recordActivity(tx, {
      vendorId: input.vendorId,
      action: "api_key.created",
      subjectId: inserted.id,
      at: inserted.createdAt,
      ...(input.test ? { detail: { test: true } } : {}),
    });
    return inserted;
  });
  return { row, key };
}

/** A live key: random, but never one that reads as a test key (base64url may begin `test_`). */
function liveKey(): string {
  for (;;) {
    const key = generateSecret(API_KEY_PREFIX, 32);
    if (!key.startsWith(TEST_API_KEY_PREFIX)) return key;
  }
}

/**
 * The principal an API key stands for, or undefined for an unknown or revoked key. `verified`
 * holds keys this process checked recently (verified-keys.ts); without it, every call reads the row.
 */
export async function authenticateApiKey(
  ctx: ServiceContext,
  key: string,
  verified?: VerifiedKeys,
): Promise<Principal | undefined> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return undefined;
  const hash = hashSecret(key);
  let row = verified?.get(hash);
  if (!row) {
    const generation = verified?.generation() ?? 0;
    row = await findApiKeyByHash(ctx.db, hash);
    // The lookup is by hash, so timing reveals nothing about the key; compare anyway, in constant time.
    if (!row || row.revoked || !safeEqual(row.keyHash, hash)) return undefined;
    verified?.remember(row, generation);
  }
  const now = ctx.now();
  if (useToRecord(row.id, row.lastUsedMs, now.getTime())) {
    // Held in memory, the credential records the use too, so the next minute's requests skip it.
    row.lastUsedMs = now.getTime();
    // Off the request path: a failed bookkeeping write must not fail the caller's request.
    touchApiKey(ctx.db, row.vendorId, row.id, now).catch(() => {});
  }
  return {
    vendorId: row.vendorId,
    scopes: new Set(row.scopes ? (row.scopes.filter(isScope) as Scope[]) : allScopes),
    credential: { kind: "api_key", id: row.id },
    // The key's vendor is the sandbox exactly when the key is a test key (createApiKey).
    livemode: !key.startsWith(TEST_API_KEY_PREFIX),
  };
}

export async function revokeApiKey(ctx: ServiceContext, vendorId: string, id: string): Promise<boolean> {
  if (!isId(id)) return false;
  const revoked = await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const done = await revokeApiKeyRow(tx, vendorId, id, now);
    if (done) await recordActivity(tx, { vendorId, action: "api_key.revoked", subjectId: id, at: now });
    return done;
  });
  // Every process hears of it from the api_key_changes trigger on commit; this one forgets it now.
  if (revoked) forgetApiKey(id);
  return revoked;
}

/** The shop's keys, its sandbox's test keys among them, newest first, without their hashes (the dashboard's list, the CLI's). */
export async function listApiKeysOfVendor(ctx: ServiceContext, vendorId: string): Promise<ApiKeyJson[]> {
  return (await listApiKeyRows(ctx.db, vendorId)).map(presentApiKey);
}

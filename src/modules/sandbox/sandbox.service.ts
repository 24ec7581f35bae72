// A sandbox per shop (CONTRACT 11): test keys (`vk_test_…`) act for
// the shop's sandbox, a tenant of its own made on the first test key. Everything the API keeps is
// scoped by tenant, so a test key never sees live data and a live key never sees test data, and
// sandbox webhooks hear only sandbox events, with no code of their own. The sandbox cannot sign
// in, sends no mail, is left out of the operator's vendor list, and is deleted with its shop.
import type { ServiceContext } from "../../context.ts";
import { fieldError, notFound } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import {
  countSandboxRecords,
  findSandboxOf,
  findVendorRow,
  insertSandboxOnce,
  type SandboxRow,
} from "./sandbox.repository.ts";

/**
 * The sandbox's sign-in e-mail: unique (the vendors e-mail index), never a mailbox (`.invalid` is
 * reserved, RFC 2606), and never a sign-in (a sandbox has no members, and the vendor look-ups by
 * e-mail skip sandboxes).
 */
export function sandboxEmail(shopId: string): string {
  return `sandbox-${shopId}@sandbox.invalid`;
}

/** The shop's sandbox, made now if it has none. A sandbox has no sandbox of its own. */
export async function ensureSandbox(ctx: ServiceContext, shopId: string): Promise<SandboxRow> {
  const existing = await findSandboxOf(ctx.db, shopId);
  if (existing) return existing;
  const shop = await findVendorRow(ctx.db, shopId);
  if (!shop) throw notFound("Vendor");
  if (shop.sandboxOf !== null) {
    throw fieldError("validation_failed", "vendor", "is a sandbox, which has no sandbox of its own");
  }
  const now = ctx.now();
  await insertSandboxOnce(ctx.db, {
    id: newId(),
    // What its public pages (tracking, inquiry form) show, as the shop had it when the sandbox was
    // made; the API's profile reads the shop's own row. Customer mail stays off (and is never sent).
    name: shop.name,
    timeZone: shop.timeZone,
    website: shop.website,
    email: sandboxEmail(shopId),
    sandboxOf: shopId,
    createdAt: now,
    updatedAt: now,
  });
  const made = await findSandboxOf(ctx.db, shopId);
  if (!made) throw new Error("ensureSandbox: the sandbox row is missing after its insert");
  return made;
}

/** The shop's sandbox, or undefined before its first test key. */
export async function sandboxOfShop(ctx: ServiceContext, shopId: string): Promise<SandboxRow | undefined> {
  return findSandboxOf(ctx.db, shopId);
}

/** What the sandbox holds, by kind (the dashboard's summary). */
export async function sandboxSummary(ctx: ServiceContext, sandboxId: string) {
  return countSandboxRecords(ctx.db, sandboxId);
}

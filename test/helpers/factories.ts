// Each test makes its own vendor, so tests never depend on each other's data.
import { randomUUID } from "node:crypto";
import type { Scope } from "../../src/auth/scopes.ts";
import type { ServiceContext } from "../../src/context.ts";
import { createApiKey, revokeApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createVendor as createVendorRow } from "../../src/modules/vendors/vendors.service.ts";

export const TEST_PASSWORD = "correct horse battery staple";

export async function createVendor(ctx: ServiceContext, name = "Test Bridal") {
  const email = `vendor-${randomUUID()}@example.test`;
  return createVendorRow(ctx, { name, email, password: TEST_PASSWORD });
}

export async function createKey(ctx: ServiceContext, vendorId: string, scopes?: Scope[]): Promise<string> {
  const { key } = await createApiKey(ctx, { vendorId, name: "test key", scopes });
  return key;
}

/** A vendor with an all-scopes API key: the usual starting point of a test. */
export async function createVendorWithKey(ctx: ServiceContext, name?: string) {
  const vendor = await createVendor(ctx, name);
  const key = await createKey(ctx, vendor.id);
  return { vendor, key };
}

export async function createRevokedKey(ctx: ServiceContext, vendorId: string): Promise<string> {
  const { row, key } = await createApiKey(ctx, { vendorId, name: "revoked" });
  await revokeApiKey(ctx, vendorId, row.id);
  return key;
}

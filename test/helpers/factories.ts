// Each test makes its own vendor, so tests never depend on each other's data.
import { randomUUID } from "node:crypto";
import type { Role } from "../../src/auth/member-policy.ts";
import type { Scope } from "../../src/auth/scopes.ts";
import type { ServiceContext } from "../../src/context.ts";
import { newId } from "../../src/lib/ids.ts";
import { hashPassword } from "../../src/lib/passwords.ts";
import { createApiKey, revokeApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { insertMember } from "../../src/modules/members/members.repository.ts";
import { insertVendor } from "../../src/modules/vendors/vendors.repository.ts";

export const TEST_PASSWORD = "correct horse battery staple";

// The slow password hash (scrypt, 50-150 ms of CPU) is paid once per worker, not once per vendor:
// the suite makes over a thousand vendors, all with this password. And it is made at N=2^11, not
// the service's 2^15: sign-in verifies a hash with the N stored in it, and the suite signs in
// with this password hundreds of times (~7 ms of CPU each instead of ~50-150). Signing up, the CLI
// and password changes still hash through the service at full cost (their own tests), and sign-in
// verifies this hash the real way.
let testPasswordHash: Promise<string> | undefined;

/**
 * A shop and its first owner, who signs in with the shop's e-mail and TEST_PASSWORD; its e-mail
 * confirmed unless `emailConfirmed: false` (its mail to others then held: src/mail/budget.ts).
 */
export async function createVendor(
  ctx: ServiceContext,
  name = "Test Bridal",
  options: { emailConfirmed?: boolean } = {},
) {
  testPasswordHash ??= hashPassword(TEST_PASSWORD, { N: 2 ** 11 });
  const now = ctx.now();
  const vendor = await insertVendor(ctx.db, {
    id: newId(),
    name,
    email: `vendor-${randomUUID()}@example.test`,
    emailConfirmedAt: options.emailConfirmed === false ? null : now,
    createdAt: now,
    updatedAt: now,
  });
  const owner = await insertMember(ctx.db, {
    id: newId(),
    vendorId: vendor.id,
    email: vendor.email,
    name: "",
    passwordHash: await testPasswordHash,
    role: "owner",
    createdAt: now,
    updatedAt: now,
  });
  return { ...vendor, ownerId: owner.id };
}

/** Another member of the shop (staff unless told), signing in with their e-mail and TEST_PASSWORD. */
export async function createMember(
  ctx: ServiceContext,
  vendorId: string,
  options: { role?: Role; name?: string; email?: string } = {},
) {
  testPasswordHash ??= hashPassword(TEST_PASSWORD, { N: 2 ** 11 });
  const now = ctx.now();
  return insertMember(ctx.db, {
    id: newId(),
    vendorId,
    email: options.email ?? `member-${randomUUID()}@example.test`,
    name: options.name ?? "Sam Staff",
    passwordHash: await testPasswordHash,
    role: options.role ?? "staff",
    createdAt: now,
    updatedAt: now,
  });
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

import { randomBytes } from "node:crypto";
import type { ServiceContext } from "../../context.ts";
import type { Executor } from "../../db/client.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword, verifyPassword } from "../../lib/passwords.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { revokeGrantsOfVendor, voidUnusedCodes } from "../connections/oauth.repository.ts";
import { deleteOtherSessionsOfVendor, deleteSessionsOfVendor } from "../sessions/sessions.repository.ts";
import { voidPasswordResetsOfVendor } from "./password-resets.repository.ts";
import { presentProfile, presentVendor } from "./vendors.presenter.ts";
import {
  findVendorByEmail,
  findVendorById,
  insertVendor,
  listVendorRows,
  updateVendorPassword,
  type VendorRow,
} from "./vendors.repository.ts";

export interface CreateVendorInput {
  name: string;
  email: string;
  password: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createVendor(ctx: ServiceContext, input: CreateVendorInput): Promise<VendorRow> {
  const name = input.name.trim();
  const email = input.email.trim();
  if (!name) throw fieldError("validation_failed", "name", "is required");
  if (!EMAIL.test(email)) throw fieldError("validation_failed", "email", "must be a valid e-mail address");
  if (input.password.length < 10)
    throw fieldError("validation_failed", "password", "must be at least 10 characters");
  if (await findVendorByEmail(ctx.db, email)) {
    throw new AppError("validation_failed", "A vendor with this e-mail already exists", {
      errors: [{ field: "email", message: "is already registered" }],
    });
  }
  const now = ctx.now();
  return insertVendor(ctx.db, {
    id: newId(),
    name,
    email,
    passwordHash: await hashPassword(input.password),
    createdAt: now,
    updatedAt: now,
  });
}

/** A shop named by id or e-mail, as the CLI accepts it; never a sandbox (its shop stands for it). */
export async function findVendor(ctx: ServiceContext, idOrEmail: string): Promise<VendorRow | undefined> {
  if (idOrEmail.includes("@")) return findVendorByEmail(ctx.db, idOrEmail);
  const row = isId(idOrEmail) ? await findVendorById(ctx.db, idOrEmail) : undefined;
  return row?.sandboxOf === null ? row : undefined;
}

/** Every vendor, oldest first: the operator's list (the CLI), never reachable over the API. */
export async function listVendors(ctx: ServiceContext) {
  return (await listVendorRows(ctx.db)).map(presentVendor);
}

/**
 * `GET /api/vendor/profile` (CONTRACT 5): never the password hash. A sandbox answers with its own
 * id (the one its public inquiry form takes) and its shop's name, e-mail and settings, `livemode: false`.
 */
export async function getProfile(ctx: ServiceContext, vendorId: string) {
  const row = await findVendorById(ctx.db, vendorId);
  if (!row) throw new AppError("not_found", "Vendor not found");
  if (row.sandboxOf === null) return presentProfile(row, row);
  const shop = await findVendorById(ctx.db, row.sandboxOf);
  if (!shop) throw new AppError("not_found", "Vendor not found");
  return presentProfile(row, shop);
}

// A hash of a random password: verifying against it when the e-mail is unknown makes an unknown
// account take as long as a wrong password, so timing does not reveal which e-mails exist.
let dummyHash: Promise<string> | undefined;

/** The vendor whose e-mail and password these are, or undefined (one slow hash either way). */
export async function verifyVendorCredentials(
  ctx: ServiceContext,
  email: string,
  password: string,
): Promise<VendorRow | undefined> {
  // Refused before any query: PostgreSQL text cannot hold U+0000 (a 500 otherwise).
  const refused = email.length > 320 || password.length > 1024 || email.includes("\u0000");
  const vendor = refused ? undefined : await findVendorByEmail(ctx.db, email.trim());
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  const ok = await verifyPassword(password, vendor?.passwordHash ?? (await dummyHash));
  return vendor && ok ? vendor : undefined;
}

/**
 * Sets a new password. In the same transaction every OAuth grant (so every access and refresh
 * token), every unused authorization code and every dashboard session of the vendor is revoked
 * (CONTRACT 6): whoever knew the old password loses whatever it gave them.
 */
export async function changeVendorPassword(
  ctx: ServiceContext,
  vendorId: string,
  input: { currentPassword: string; newPassword: string },
  options: { keepSessionId?: string } = {},
): Promise<void> {
  const vendor = isId(vendorId) ? await findVendorById(ctx.db, vendorId) : undefined;
  if (!vendor) throw notFound("Vendor");
  if (!(await verifyPassword(input.currentPassword, vendor.passwordHash))) {
    throw fieldError("validation_failed", "currentPassword", "is not the current password");
  }
  if (input.newPassword.length < 10 || input.newPassword.length > 1024) {
    throw fieldError("validation_failed", "newPassword", "must be 10-1024 characters");
  }
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    await replacePassword(tx, vendorId, passwordHash, now, options.keepSessionId);
    await recordActivity(tx, { vendorId, action: "password.changed", subjectId: null, at: now });
  });
}

/**
 * The new password hash, and in the same transaction every OAuth grant (so every access and
 * refresh token), every unused code and every dashboard session but `keepSessionId` revoked
 * (CONTRACT 6), and every outstanding reset link voided (a link mailed before the change must not
 * undo it, issue 24). A password change and a reset both end here.
 */
export async function replacePassword(
  tx: Executor,
  vendorId: string,
  passwordHash: string,
  now: Date,
  keepSessionId?: string,
): Promise<void> {
  await updateVendorPassword(tx, vendorId, passwordHash, now);
  await revokeGrantsOfVendor(tx, vendorId, now);
  await voidUnusedCodes(tx, { vendorId }, now);
  await voidPasswordResetsOfVendor(tx, vendorId, now);
  // The dashboard keeps the session that made the change; every other one is signed out.
  if (keepSessionId) await deleteOtherSessionsOfVendor(tx, vendorId, keepSessionId);
  else await deleteSessionsOfVendor(tx, vendorId);
}

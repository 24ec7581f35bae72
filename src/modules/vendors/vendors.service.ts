import type { ServiceContext } from "../../context.ts";
import { AppError, fieldError } from "../../errors.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { findVendorByEmail, findVendorById, insertVendor, type VendorRow } from "./vendors.repository.ts";

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

/** A vendor named by id or e-mail, as the CLI accepts it. */
export async function findVendor(ctx: ServiceContext, idOrEmail: string): Promise<VendorRow | undefined> {
  if (idOrEmail.includes("@")) return findVendorByEmail(ctx.db, idOrEmail);
  return isId(idOrEmail) ? findVendorById(ctx.db, idOrEmail) : undefined;
}

/** `GET /api/vendor/profile` (CONTRACT 5): never the password hash. */
export async function getProfile(ctx: ServiceContext, vendorId: string) {
  const row = await findVendorById(ctx.db, vendorId);
  if (!row) throw new AppError("not_found", "Vendor not found");
  return { id: row.id, name: row.name, email: row.email, createdAt: row.createdAt.toISOString() };
}

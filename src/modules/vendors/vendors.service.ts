import type { ServiceContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { AppError, fieldError } from "../../errors.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isEmailAddress } from "../../lib/email-address.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { findMemberByEmail, insertMember } from "../members/members.repository.ts";
import { presentProfile, presentVendor } from "./vendors.presenter.ts";
import {
  findVendorByEmail,
  findVendorById,
  insertVendor,
  listVendorRows,
  type VendorRow,
} from "./vendors.repository.ts";

export interface CreateVendorInput {
  name: string;
  email: string;
  password: string;
}

export async function createVendor(
  ctx: ServiceContext,
  input: CreateVendorInput,
): Promise<VendorRow & { ownerId: string }> {
  const name = input.name.trim();
  const email = input.email.trim();
  if (!name) throw fieldError("validation_failed", "name", "is required");
  const nameProblem = displayNameProblem(name, 200);
  if (nameProblem) throw fieldError("validation_failed", "name", nameProblem);
  if (!isEmailAddress(email))
    throw fieldError("validation_failed", "email", "must be a valid e-mail address");
  if (input.password.length < 10)
    throw fieldError("validation_failed", "password", "must be at least 10 characters");
  const taken = () =>
    new AppError("validation_failed", "A vendor with this e-mail already exists", {
      errors: [{ field: "email", message: "is already registered" }],
    });
  if ((await findVendorByEmail(ctx.db, email)) || (await findMemberByEmail(ctx.db, email))) throw taken();
  const passwordHash = await hashPassword(input.password);
  const now = ctx.now();
  // The shop and its first owner, who signs in with the shop's e-mail and this password.
  try {
    return await ctx.db.transaction(async (tx) => {
      const vendor = await insertVendor(tx, { id: newId(), name, email, createdAt: now, updatedAt: now });
      const owner = await insertMember(tx, {
        id: newId(),
        vendorId: vendor.id,
        email,
        name: "",
        passwordHash,
        role: "owner",
        createdAt: now,
        updatedAt: now,
      });
      return { ...vendor, ownerId: owner.id };
    });
  } catch (error) {
    // The address registered meanwhile, or a sandbox's own (which the look-ups above skip).
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/**
 * A shop named by id or e-mail (the shop's, or any of its members'), as the CLI accepts it; never
 * a sandbox (its shop stands for it).
 */
export async function findVendor(ctx: ServiceContext, idOrEmail: string): Promise<VendorRow | undefined> {
  if (idOrEmail.includes("@")) {
    const vendor = await findVendorByEmail(ctx.db, idOrEmail);
    if (vendor) return vendor;
    const member = await findMemberByEmail(ctx.db, idOrEmail);
    return member ? findVendorById(ctx.db, member.vendorId) : undefined;
  }
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

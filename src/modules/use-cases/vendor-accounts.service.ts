// Opening a shop and finding one by an e-mail: a shop (vendors/) and the members who sign in for
// it (members/) together, so neither module imports the other's side of it.
import type { ServiceContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { AppError, fieldError } from "../../errors.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isEmailAddress } from "../../lib/email-address.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { findMemberByEmail, insertMember } from "../members/members.repository.ts";
import {
  findVendorByEmail,
  findVendorById,
  insertVendor,
  type VendorRow,
} from "../vendors/vendors.repository.ts";
import { localeErrors, refuse } from "../vendors/vendors.service.ts";

export interface CreateVendorInput {
  name: string;
  email: string;
  password: string;
  /** The shop's language (CONTRACT 12); default en, or the browser's at sign-up. */
  language?: string | undefined;
  /** The shop's IANA time zone; default UTC. */
  timeZone?: string | undefined;
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
  refuse(localeErrors(input));
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
      const vendor = await insertVendor(tx, {
        id: newId(),
        name,
        email,
        ...(input.language !== undefined ? { language: input.language } : {}),
        ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
        createdAt: now,
        updatedAt: now,
      });
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

import type { ServiceContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { AppError, type FieldError, fieldError, notFound } from "../../errors.ts";
import { isLanguage, languages } from "../../i18n/languages.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isEmailAddress } from "../../lib/email-address.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { findMemberByEmail, insertMember } from "../members/members.repository.ts";
import { forgetShopPhoneCountry } from "./shop-phone-country.ts";
import { presentProfile, presentVendor } from "./vendors.presenter.ts";
import {
  findVendorByEmail,
  findVendorById,
  insertVendor,
  listVendorRows,
  updateVendorColumns,
  type VendorRow,
} from "./vendors.repository.ts";

export interface CreateVendorInput {
  name: string;
  email: string;
  password: string;
  /** The shop's language (CONTRACT 12); default en, or the browser's at sign-up. */
  language?: string | undefined;
  /** The shop's IANA time zone; default UTC. */
  timeZone?: string | undefined;
}

/** The refusals of a shop language and time zone, each naming its field. */
function localeErrors(input: { language?: string | undefined; timeZone?: string | undefined }): FieldError[] {
  const errors: FieldError[] = [];
  if (input.language !== undefined && !isLanguage(input.language))
    errors.push({ field: "language", message: `must be one of ${languages.join(", ")}` });
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    errors.push({ field: "timeZone", message: "must be an IANA time zone such as Europe/Lisbon" });
  return errors;
}

function refuse(errors: FieldError[]): void {
  if (errors.length > 0)
    throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
      errors,
    });
}

/** The operator's change of a shop's language and time zone (the CLI's vendor update). */
export async function updateVendorLocale(
  ctx: ServiceContext,
  id: string,
  input: { language?: string | undefined; timeZone?: string | undefined },
): Promise<VendorRow> {
  refuse(localeErrors(input));
  const changes = {
    ...(input.language !== undefined ? { language: input.language } : {}),
    ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
  };
  const row = await updateVendorColumns(ctx.db, id, changes, ctx.now());
  if (!row) throw notFound("Vendor");
  forgetShopPhoneCountry(id);
  return row;
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

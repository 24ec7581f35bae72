import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { isLanguage, languages } from "../../i18n/languages.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { forgetShopPhoneCountry } from "./shop-phone-country.ts";
import { presentProfile, presentVendor } from "./vendors.presenter.ts";
import { findVendorById, listVendorRows, updateVendorColumns, type VendorRow } from "./vendors.repository.ts";

/** The refusals of a shop language and time zone, each naming its field. */
export function localeErrors(input: {
  language?: string | undefined;
  timeZone?: string | undefined;
}): FieldError[] {
  const errors: FieldError[] = [];
  if (input.language !== undefined && !isLanguage(input.language))
    errors.push({ field: "language", message: `must be one of ${languages.join(", ")}` });
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    errors.push({ field: "timeZone", message: "must be an IANA time zone such as Europe/Lisbon" });
  return errors;
}

export function refuse(errors: FieldError[]): void {
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

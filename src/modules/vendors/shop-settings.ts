// A vendor's shop settings: the shop's name (shown on the dashboard and the tracking page), the
// contact e-mail customers see, and the shop's IANA time zone, which the dashboard and tracking
// page show times in and read typed dates in. The API keeps speaking UTC.
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { presentShopSettings } from "./vendors.presenter.ts";
import { findVendorById, updateVendorSettings } from "./vendors.repository.ts";

export type ShopSettings = ReturnType<typeof presentShopSettings>;

/** The vendor's shop settings, or undefined when there is no such vendor. */
export async function findShopSettings(
  ctx: ServiceContext,
  vendorId: string,
): Promise<ShopSettings | undefined> {
  const row = await findVendorById(ctx.db, vendorId);
  return row ? presentShopSettings(row) : undefined;
}

export async function getShopSettings(ctx: ServiceContext, vendorId: string): Promise<ShopSettings> {
  const settings = await findShopSettings(ctx, vendorId);
  if (!settings) throw notFound("Vendor");
  return settings;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Saves all three; each refused field is named (validation_failed). */
export async function updateShopSettings(
  ctx: ServiceContext,
  vendorId: string,
  input: ShopSettings,
): Promise<ShopSettings> {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name === "" || name.length > 200) errors.push({ field: "name", message: "must be 1-200 characters" });
  const contactEmail = input.contactEmail?.trim() || null;
  if (contactEmail !== null && (contactEmail.length > 254 || !EMAIL.test(contactEmail))) {
    errors.push({ field: "contactEmail", message: "must be an e-mail address" });
  }
  if (!isTimeZone(input.timeZone)) {
    errors.push({ field: "timeZone", message: "must be an IANA time zone such as Europe/Lisbon" });
  }
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
      errors,
    });
  }
  const settings = { name, contactEmail, timeZone: input.timeZone };
  await updateVendorSettings(ctx.db, vendorId, settings, ctx.now());
  return settings;
}

// A vendor's shop settings: the shop's name (shown on the dashboard and the tracking page), the
// contact e-mail customers see, its website (where its inquiry form may return visitors), whether
// customers are e-mailed about their orders and appointments (off by default), and the shop's
// IANA time zone, which the dashboard and tracking
// page show times in and read typed dates in. The API keeps speaking UTC.
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isEmailAddress } from "../../lib/email-address.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { forgetShopPhoneCountry } from "./shop-phone-country.ts";
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

function isWebsite(value: string): boolean {
  if (value.length > 200) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * Whether `target` is an address on the shop's website (same origin), where its inquiry form may
 * send the visitor back after a plain form post; anything else would make us an open redirect.
 */
export function isOnWebsite(target: string, website: string | null): boolean {
  if (!website || target.length > 2000) return false;
  try {
    return new URL(target).origin === website;
  } catch {
    return false;
  }
}

/** Saves them all; each refused field is named (validation_failed). The website keeps its origin only. */
export async function updateShopSettings(
  ctx: ServiceContext,
  vendorId: string,
  input: Omit<ShopSettings, "website" | "customerMail"> &
    Partial<Pick<ShopSettings, "website" | "customerMail">>,
): Promise<
  Omit<ShopSettings, "website" | "customerMail"> & Partial<Pick<ShopSettings, "website" | "customerMail">>
> {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  const nameProblem = displayNameProblem(name, 200);
  if (nameProblem) errors.push({ field: "name", message: nameProblem });
  const contactEmail = input.contactEmail?.trim() || null;
  if (contactEmail !== null && !isEmailAddress(contactEmail)) {
    errors.push({ field: "contactEmail", message: "must be an e-mail address" });
  }
  const website = input.website?.trim() || null;
  if (website !== null && !isWebsite(website)) {
    errors.push({ field: "website", message: "must be an http(s) address such as https://shop.example" });
  }
  if (!isTimeZone(input.timeZone)) {
    errors.push({ field: "timeZone", message: "must be an IANA time zone such as Europe/Lisbon" });
  }
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
      errors,
    });
  }
  const settings = {
    name,
    contactEmail,
    timeZone: input.timeZone,
    // Left out, a setting keeps its value.
    ...(input.website === undefined ? {} : { website: website === null ? null : new URL(website).origin }),
    ...(input.customerMail === undefined ? {} : { customerMail: input.customerMail }),
  };
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const before = await findVendorById(tx, vendorId);
    await updateVendorSettings(tx, vendorId, settings, now);
    forgetShopPhoneCountry(vendorId);
    const current = before ? (presentShopSettings(before) as Record<string, unknown>) : {};
    const fields = Object.entries(settings)
      .filter(([field, value]) => current[field] !== value)
      .map(([field]) => field);
    if (fields.length > 0) {
      await recordActivity(tx, {
        vendorId,
        action: "settings.changed",
        subjectId: null,
        at: now,
        detail: { fields },
      });
    }
  });
  return settings;
}

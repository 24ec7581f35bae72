// The shop's language and brand (CONTRACT 12, Languages and "The shop's brand and wording"): the
// language its customers' pages and mail default to (and its members' dashboard), and what those
// pages and mails show of it besides its name: a logo (an https URL, or none), an accent colour
// (#rrggbb), its postal address, phone, and the signature that ends every customer mail. Plain text
// all: pages and mails escape it.
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError, notFound } from "../../errors.ts";
import { isLanguage, languages } from "../../i18n/languages.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { findVendorById, updateVendorBrand, type VendorRow } from "./vendors.repository.ts";

export interface ShopBrand {
  name: string;
  language: string;
  timeZone: string;
  contactEmail: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  address: string | null;
  phone: string | null;
  signature: string | null;
}

export const BRAND_LIMITS = { logoUrl: 2000, address: 500, phone: 50, signature: 1000 } as const;

export function presentShopBrand(row: VendorRow): ShopBrand {
  return {
    name: row.name,
    language: isLanguage(row.language) ? row.language : "en",
    timeZone: row.timeZone,
    contactEmail: row.contactEmail,
    logoUrl: row.brandLogoUrl,
    accentColor: row.brandAccentColor,
    address: row.address,
    phone: row.phone,
    signature: row.mailSignature,
  };
}

/** The shop's brand, or undefined when there is no such shop. */
export async function findShopBrand(ctx: ServiceContext, vendorId: string): Promise<ShopBrand | undefined> {
  const row = await findVendorById(ctx.db, vendorId);
  return row ? presentShopBrand(row) : undefined;
}

export async function getShopBrand(ctx: ServiceContext, vendorId: string): Promise<ShopBrand> {
  const brand = await findShopBrand(ctx, vendorId);
  if (!brand) throw notFound("Vendor");
  return brand;
}

export const isHttpsUrl = (value: string): boolean => {
  if (value.length > BRAND_LIMITS.logoUrl || /[\s"'<>]/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
};

export const isAccentColor = (value: string): boolean => /^#[0-9a-fA-F]{6}$/.test(value);

export interface ShopBrandInput {
  language: string;
  logoUrl: string;
  accentColor: string;
  address: string;
  phone: string;
  signature: string;
}

/** Saves the language and brand; each refused field is named (validation_failed). Empty: none. */
export async function updateShopBrand(
  ctx: ServiceContext,
  vendorId: string,
  input: ShopBrandInput,
): Promise<void> {
  const errors: FieldError[] = [];
  const text = (value: string) => value.replace(/\r\n/g, "\n").trim() || null;
  const logoUrl = text(input.logoUrl);
  const accentColor = text(input.accentColor)?.toLowerCase() ?? null;
  const address = text(input.address);
  const phone = text(input.phone);
  const signature = text(input.signature);
  if (!isLanguage(input.language)) {
    errors.push({ field: "language", message: `must be one of ${languages.join(", ")}` });
  }
  if (logoUrl !== null && !isHttpsUrl(logoUrl)) {
    errors.push({ field: "logoUrl", message: "must be an https address of an image" });
  }
  if (accentColor !== null && !isAccentColor(accentColor)) {
    errors.push({ field: "accentColor", message: "must be a colour as #rrggbb" });
  }
  for (const [field, value] of [
    ["address", address],
    ["phone", phone],
    ["signature", signature],
  ] as const) {
    if (value !== null && value.length > BRAND_LIMITS[field]) {
      errors.push({ field, message: `must be at most ${BRAND_LIMITS[field]} characters` });
    }
  }
  if (phone !== null && /[\n]/.test(phone)) errors.push({ field: "phone", message: "must be one line" });
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
      errors,
    });
  }
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    await updateVendorBrand(
      tx,
      vendorId,
      {
        language: input.language,
        brandLogoUrl: logoUrl,
        brandAccentColor: accentColor,
        address,
        phone,
        mailSignature: signature,
      },
      now,
    );
    await recordActivity(tx, {
      vendorId,
      action: "settings.changed",
      subjectId: null,
      at: now,
      detail: { fields: ["brand"] },
    });
  });
}

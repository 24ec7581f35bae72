// The default country of a shop's phone numbers (CONTRACT 12), for numbers written without a
// country code. A shop has no country setting: its time zone stands in (lib/zone-countries.ts),
// and a shop in UTC (the default zone) has none, so only numbers with a country code normalize.
//
// The order create is one statement on a measured hot path, so the zone is not read on every
// create: only for a number without a country code, and then kept for a minute per process (a
// settings change here forgets it at once; another process sees it within that minute).
import type { Executor } from "../../db/client.ts";
import { isInternationalPhone, normalizePhone, phoneCountryOfShop } from "../../lib/phone.ts";
import { findVendorById } from "./vendors.repository.ts";

const KEEP_MS = 60_000;
const MAX_SHOPS = 10_000;
const known = new Map<string, { country: string | undefined; until: number }>();

async function shopPhoneCountry(db: Executor, vendorId: string): Promise<string | undefined> {
  const now = Date.now();
  const hit = known.get(vendorId);
  if (hit && hit.until > now) return hit.country;
  const vendor = await findVendorById(db, vendorId);
  const country = vendor ? phoneCountryOfShop(vendor.timeZone) : undefined;
  if (known.size >= MAX_SHOPS) known.clear();
  known.set(vendorId, { country, until: now + KEEP_MS });
  return country;
}

/** The shop changed its time zone: read it again next time. */
export function forgetShopPhoneCountry(vendorId: string): void {
  known.delete(vendorId);
}

/**
 * `phone` in E.164 as the shop reads it, or null (lib/phone.ts). `db` is the caller's transaction
 * when it holds one (PGlite has one connection: a read beside the transaction would wait for it).
 */
export async function shopPhoneE164(
  db: Executor,
  vendorId: string,
  phone: string | null | undefined,
): Promise<string | null> {
  if (!phone) return null;
  if (isInternationalPhone(phone)) return normalizePhone(phone);
  return normalizePhone(phone, await shopPhoneCountry(db, vendorId));
}

import type { VendorRow } from "./vendors.repository.ts";

/** The one place a vendor row becomes JSON (`GET /api/vendor/profile`, the CLI): never the password hash. */
export function presentVendor(row: VendorRow) {
  return { id: row.id, name: row.name, email: row.email, createdAt: row.createdAt.toISOString() };
}

/**
 * `GET /api/vendor/profile`: the vendor, its time zone and the address customers write to. For a
 * sandbox, `row` is the sandbox (its id, livemode false) and `shop` the shop it belongs to.
 */
export function presentProfile(row: VendorRow, shop: VendorRow) {
  return {
    id: row.id,
    name: shop.name,
    email: shop.email,
    createdAt: row.createdAt.toISOString(),
    timeZone: shop.timeZone,
    language: shop.language,
    contactEmail: shop.contactEmail,
    livemode: row.sandboxOf === null,
  };
}

/** The shop settings the dashboard edits. */
export function presentShopSettings(row: VendorRow) {
  return {
    name: row.name,
    contactEmail: row.contactEmail,
    timeZone: row.timeZone,
    website: row.website,
    customerMail: row.customerMail,
  };
}

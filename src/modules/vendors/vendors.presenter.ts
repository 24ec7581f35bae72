import type { VendorRow } from "./vendors.repository.ts";

/** The one place a vendor row becomes JSON (`GET /api/vendor/profile`, the CLI): never the password hash. */
export function presentVendor(row: VendorRow) {
  return { id: row.id, name: row.name, email: row.email, createdAt: row.createdAt.toISOString() };
}

/** `GET /api/vendor/profile`: the vendor, its time zone and the address customers write to. */
export function presentProfile(row: VendorRow) {
  return { ...presentVendor(row), timeZone: row.timeZone, contactEmail: row.contactEmail };
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

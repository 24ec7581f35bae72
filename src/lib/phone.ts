import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js";
import { countryOfTimeZone } from "./zone-countries.ts";

/**
 * A phone number in E.164 (`+491701234567`), what customers are matched by (CONTRACT 12), or null
 * when it does not parse as a possible number. A number without a country code is read as one of
 * `country`; without a country only numbers written with one (`+49 …`, `0049 …`) normalize.
 */
export function normalizePhone(phone: string | null | undefined, country?: string): string | null {
  if (!phone) return null;
  const written = phone.trim().replace(/^00/, "+");
  const parsed = parsePhoneNumberFromString(written, country as CountryCode | undefined);
  return parsed?.isPossible() ? parsed.number : null;
}

/** Whether the number names its country itself, so no shop country is needed to normalize it. */
export function isInternationalPhone(phone: string): boolean {
  return /^\s*(\+|00)/.test(phone);
}

/** The default country of the shop's phone numbers: its time zone's (lib/zone-countries.ts). */
export function phoneCountryOfShop(timeZone: string): string | undefined {
  return countryOfTimeZone(timeZone);
}

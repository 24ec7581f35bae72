// Which languages the service speaks (CONTRACT 12, Languages) and which one a reader gets. A
// language is one catalogue file in ./catalogues, named by its BCP 47 code: the list is read from
// that folder, so a new language is a new file and nothing else.
import fs from "node:fs";
import { match } from "@formatjs/intl-localematcher";
import Negotiator from "negotiator";

export const catalogueDir = new URL("./catalogues/", import.meta.url);

/** The base language: every key lives in it first, and the others mirror its keys. */
export const baseLanguage = "en";

/**
 * A pseudo-locale for tests and translators: English accented and 40 % longer, so text the
 * layout cuts off or a string that skipped the catalogue shows at a glance (pseudo-locale.ts).
 */
export const pseudoLocale = "en-XA";

/** The languages a person can choose: one per catalogue file, base language first. */
export const languages: readonly string[] = fs
  .readdirSync(catalogueDir)
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -".json".length))
  .sort((a, b) => (a === baseLanguage ? -1 : b === baseLanguage ? 1 : a.localeCompare(b)));

/** A language a reader can be given: one of `languages`, or the pseudo-locale. */
export type Locale = string;

export function isLanguage(value: unknown): value is string {
  return typeof value === "string" && languages.includes(value);
}

export function isLocale(value: unknown): value is Locale {
  return isLanguage(value) || value === pseudoLocale;
}

/**
 * The best of our languages for an Accept-Language header ("de-AT,de;q=0.9,en;q=0.5" → "de"),
 * or `fallback` when the header names none of them (or is absent).
 */
export function negotiateLanguage(acceptLanguage: string | undefined, fallback: string): string {
  if (!acceptLanguage) return fallback;
  const requested = new Negotiator({ headers: { "accept-language": acceptLanguage } })
    .languages()
    .filter((tag) => tag !== "*");
  if (requested.length === 0) return fallback;
  try {
    const found = match(requested, languages as string[], "", { algorithm: "best fit" });
    return isLanguage(found) ? found : fallback;
  } catch {
    // A malformed tag the matcher refuses: the reader gets the fallback, not an error page.
    return fallback;
  }
}

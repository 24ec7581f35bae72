// Who reads a page, and so in which language it is written: the signed-in member's own language
// (members.language, else the shop's vendors.language), or for a visitor nobody knows yet (sign-in,
// sign-up, forgot-password, error pages before a session) the best match of Accept-Language. The
// pseudo-locale en-XA is a member language only outside production (docs/languages.md).
import type { FastifyRequest } from "fastify";
import { type Config, DEFAULT_PRODUCT_NAME } from "../config.ts";
import { baseLanguage, isLanguage, type Locale, negotiateLanguage, pseudoLocale } from "../i18n/languages.ts";
import { type Translator, translator } from "../i18n/translator.ts";

/** What a page frame needs to speak to its reader: their translator and the product's name. */
export interface Reader {
  readonly t: Translator;
  readonly productName: string;
}

export interface ReaderSettings {
  productName: string;
  /** Whether the pseudo-locale may be read (never in production). */
  pseudoLocale: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set on every request of a browser scope (browser-scope.ts). */
    readerSettings: ReaderSettings;
  }
}

export function readerSettings(config: Pick<Config, "productName" | "env">): ReaderSettings {
  return { productName: config.productName, pseudoLocale: config.env !== "production" };
}

/** Whether `value` may be stored as a member's dashboard language in this deployment. */
export function isMemberLocale(value: unknown, settings: ReaderSettings): value is Locale {
  return isLanguage(value) || (settings.pseudoLocale && value === pseudoLocale);
}

/** The locale of a stored choice, or undefined when it is not (or no longer) one we speak. */
export function storedLocale(value: string | null | undefined, settings: ReaderSettings): Locale | undefined {
  return isMemberLocale(value, settings) ? value : undefined;
}

/** The visitor's language from Accept-Language (English when it names none of ours). */
export function visitorLanguage(request: FastifyRequest): string {
  return negotiateLanguage(request.headers["accept-language"], baseLanguage);
}

/**
 * The reader of this request: the signed-in member's language (set on the session: the member's
 * own, else the shop's), or the visitor's from Accept-Language.
 */
export function readerOf(request: FastifyRequest): Reader {
  const settings = request.readerSettings ?? { productName: DEFAULT_PRODUCT_NAME, pseudoLocale: false };
  const memberLocale = storedLocale(request.dashboardSession?.member.language, settings);
  return { t: translator(memberLocale ?? visitorLanguage(request)), productName: settings.productName };
}

/** A reader in a given language (a mail, a page for someone known by other means). */
export function readerIn(locale: Locale, productName: string): Reader {
  return { t: translator(locale), productName };
}

/** English and the default product name: for a frame whose caller knows no reader. */
export const englishReader: Reader = readerIn(baseLanguage, DEFAULT_PRODUCT_NAME);

/** The translator of a stored language for this request's reader (en-XA only where allowed). */
export function translatorFor(request: FastifyRequest, stored: string | null): { t: Translator } {
  const settings = request.readerSettings ?? { productName: DEFAULT_PRODUCT_NAME, pseudoLocale: false };
  return { t: translator(storedLocale(stored, settings) ?? visitorLanguage(request)) };
}

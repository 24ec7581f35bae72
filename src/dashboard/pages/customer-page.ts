// What the pages a shop's customers read share (tracking, inquiry, thank-you, unsubscribe): the
// reader's language and the shop's brand. The language is the customer's stored one where the
// page knows the customer (tracking, unsubscribe), else the browser's Accept-Language matched to
// the shop's offer (the inquiry page), else the shop's. `?lang=` picks any language, or the
// pseudo-locale en-XA, for a visitor who wants another (and for the layout tests).
import type { FastifyRequest } from "fastify";
import { isLanguage, isLocale, negotiateLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { queryParam } from "../../web/form.ts";
import type { PageBrand } from "../../web/public-page.ts";

export function customerReader(
  request: FastifyRequest,
  known: { stored?: string | null; shop: string; negotiate?: boolean },
): Translator {
  const asked = queryParam(request.query, "lang");
  if (isLocale(asked)) return translator(asked);
  if (isLanguage(known.stored)) return translator(known.stored);
  const shop = isLanguage(known.shop) ? known.shop : "en";
  if (known.negotiate) return translator(negotiateLanguage(request.headers["accept-language"], shop));
  return translator(shop);
}

export interface BrandFields {
  contactEmail?: string | null;
  logoUrl?: string | null;
  accentColor?: string | null;
  address?: string | null;
  phone?: string | null;
}

/** The shop's brand as the page frame shows it, its words in the reader's language. */
export function pageBrand(t: Translator, shopName: string, brand: BrandFields): PageBrand {
  return {
    name: shopName,
    logoUrl: brand.logoUrl ?? null,
    accentColor: brand.accentColor ?? null,
    address: brand.address ?? null,
    phone: brand.phone ?? null,
    contactEmail: brand.contactEmail ?? null,
    ...(brand.phone ? { phoneLine: t.t("customer.brand.phone", { phone: brand.phone }) } : {}),
    logoAlt: t.t("customer.brand.logo", { shopName }),
  };
}

/** A status, order or appointment type in the reader's language ("customer.<section>.<code>"). */
export function codeText(t: Translator, section: string, code: string): string {
  const key = `customer.${section}.${code}`;
  if (t.has(key)) return t.t(key);
  const words = code.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

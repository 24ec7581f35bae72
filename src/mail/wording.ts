// What a shop may word itself in its customer mail (CONTRACT 12, "The shop's brand and wording"):
// per kind of mail, the subject and the opening paragraph, in each of its languages. The shop's
// text is plain text with a fixed set of placeholders per kind (`{customerName}`, …); anything else
// in braces is refused by name when saved, nothing the shop types is ever HTML (the templates
// escape it and keep its line breaks), and the filled-in values are the same ones the default
// messages get.
import { catalogueOf } from "../i18n/catalogue.ts";
import { isLanguage } from "../i18n/languages.ts";

/** The kinds of customer mail a shop may word, with the placeholders each offers. */
export const wordingPlaceholders = {
  order_status: ["customerName", "shopName", "orderNumber", "item", "status"],
  appointment_confirmed: ["customerName", "shopName", "appointmentType", "appointmentTime"],
  appointment_cancelled: ["customerName", "shopName", "appointmentType", "appointmentTime"],
} as const;

export type WordedKind = keyof typeof wordingPlaceholders;
export const wordedKinds = Object.keys(wordingPlaceholders) as WordedKind[];

export function isWordedKind(kind: string): kind is WordedKind {
  return Object.hasOwn(wordingPlaceholders, kind);
}

/** The catalogue section of a kind's default subject and opening (`mail.<section>.subject`). */
export const wordingSection: Record<WordedKind, string> = {
  order_status: "mail.orderStatus",
  appointment_confirmed: "mail.appointmentConfirmed",
  appointment_cancelled: "mail.appointmentCancelled",
};

/** Longest subject and opening a shop may save. */
export const WORDING_LIMITS = { subject: 200, opening: 2000 } as const;

/** A shop's wording of one kind in one language, as its outbox row keeps it; a null part is the default's. */
export interface Wording {
  subject: string | null;
  opening: string | null;
}

const placeholderPattern = /\{([^{}]*)\}/g;

/** The names in braces in `text`, in order, each once. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(placeholderPattern)].map((m) => m[1] as string))];
}

/** The placeholders in `text` the kind does not offer (empty when all are known). */
export function unknownPlaceholders(kind: WordedKind, text: string): string[] {
  const known: readonly string[] = wordingPlaceholders[kind];
  return placeholdersIn(text).filter((name) => !known.includes(name));
}

/** The shop's text with its placeholders filled in; plain text (the template escapes it). */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(placeholderPattern, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : whole,
  );
}

/** The default wording of a kind in a language: the catalogue's messages, as the editor shows them. */
export function defaultWording(kind: WordedKind, language: string): { subject: string; opening: string } {
  const catalogue = catalogueOf(isLanguage(language) ? language : "en");
  const base = catalogueOf("en");
  const key = (part: string) => `${wordingSection[kind]}.${part}`;
  return {
    subject: catalogue.get(key("subject")) ?? base.get(key("subject")) ?? "",
    opening: catalogue.get(key("opening")) ?? base.get(key("opening")) ?? "",
  };
}

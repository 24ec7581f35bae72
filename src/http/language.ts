// The languages of CONTRACT 12 as a request and response field: one of the catalogues'
// (src/i18n/catalogues), so a new language is a new file here too. Anything else is refused with a
// 400 naming the field.

import { Type } from "@sinclair/typebox";
import { languages } from "../i18n/languages.ts";
import { StringEnum } from "./common-schemas.ts";

export const LanguageSchema = StringEnum(languages as readonly string[], {
  description: `A language (BCP 47) people read pages and mail in: one of ${languages.join(", ")}`,
});

/** A customer's language: one of ours, or null for the shop's (one clear validation error). */
export const NullableLanguage = (description: string) =>
  Type.Unsafe<string | null>({ type: ["string", "null"], enum: [...languages, null], description });

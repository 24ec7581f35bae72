// What a page or a mail asks for its text: `t(key, values)` in the reader's language, and dates,
// times, numbers and lists through Intl in the same language. Messages are ICU MessageFormat
// (plurals and selects per language), compiled once per language and key.
import { IntlMessageFormat } from "intl-messageformat";
import { baseCatalogue, catalogueOf } from "./catalogue.ts";
import { baseLanguage, isLanguage, type Locale, pseudoLocale } from "./languages.ts";
import { pseudoMessage } from "./pseudo-locale.ts";

export type MessageValues = Record<string, string | number | Date>;

export interface Translator {
  /** The locale asked for (a language, or the pseudo-locale). */
  readonly locale: Locale;
  /** The BCP 47 tag for `<html lang>` and for Intl: the pseudo-locale formats as English. */
  readonly language: string;
  t(key: string, values?: MessageValues): string;
  /** Whether the catalogues have this key (for messages picked by a value, e.g. a status). */
  has(key: string): boolean;
  /** An instant as the reader reads it, in a time zone (the shop's, or the reader's). */
  dateTime(instant: Date, timeZone: string, style?: Intl.DateTimeFormatOptions): string;
  date(instant: Date, timeZone: string, style?: Intl.DateTimeFormatOptions): string;
  time(instant: Date, timeZone: string): string;
  number(value: number, style?: Intl.NumberFormatOptions): string;
  list(items: readonly string[], type?: Intl.ListFormatType): string;
}

const compiled = new Map<string, IntlMessageFormat>();

function compile(locale: Locale, key: string): IntlMessageFormat {
  const id = `${locale}\u0000${key}`;
  let format = compiled.get(id);
  if (format) return format;
  const base = baseCatalogue().get(key);
  if (base === undefined) throw new Error(`i18n: no message "${key}" in the ${baseLanguage} catalogue`);
  if (locale === pseudoLocale) {
    format = new IntlMessageFormat(pseudoMessage(base), baseLanguage);
  } else {
    // A key the language lacks falls back to English: the catalogue test keeps that from shipping.
    const message = catalogueOf(isLanguage(locale) ? locale : baseLanguage).get(key) ?? base;
    format = new IntlMessageFormat(message, isLanguage(locale) ? locale : baseLanguage);
  }
  compiled.set(id, format);
  return format;
}

const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.ListFormat>();
function cached<F extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.ListFormat>(
  id: string,
  make: () => F,
): F {
  let f = formatters.get(id) as F | undefined;
  if (!f) {
    f = make();
    formatters.set(id, f);
  }
  return f;
}

export function translator(locale: Locale): Translator {
  const language = locale === pseudoLocale || !isLanguage(locale) ? baseLanguage : locale;
  const dt = (instant: Date, timeZone: string, style: Intl.DateTimeFormatOptions) =>
    cached(
      `d${language}${timeZone}${JSON.stringify(style)}`,
      () => new Intl.DateTimeFormat(language, { ...style, timeZone }),
    ).format(instant);
  return {
    locale,
    language,
    t: (key, values) => {
      const out = compile(locale, key).format(values);
      return typeof out === "string" ? out : String(out);
    },
    has: (key) => baseCatalogue().has(key),
    dateTime: (instant, timeZone, style = { dateStyle: "full", timeStyle: "short" }) =>
      dt(instant, timeZone, style),
    date: (instant, timeZone, style = { dateStyle: "long" }) => dt(instant, timeZone, style),
    time: (instant, timeZone) => dt(instant, timeZone, { timeStyle: "short" }),
    number: (value, style = {}) =>
      cached(`n${language}${JSON.stringify(style)}`, () => new Intl.NumberFormat(language, style)).format(
        value,
      ),
    list: (items, type = "conjunction") =>
      cached(`l${language}${type}`, () => new Intl.ListFormat(language, { type })).format(items),
  };
}

// The catalogues as loaded: one JSON file per language, sections of nested objects whose leaves
// are ICU MessageFormat strings, flattened to dotted keys ("booking.page.title").
import fs from "node:fs";
import { baseLanguage, catalogueDir, languages } from "./languages.ts";

export type Catalogue = ReadonlyMap<string, string>;

function flatten(prefix: string, value: unknown, into: Map<string, string>, file: string): void {
  if (typeof value === "string") {
    into.set(prefix, value);
    return;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`${file}: ${prefix || "the top"} must be a message (string) or a section (object)`);
  }
  for (const [key, child] of Object.entries(value))
    flatten(prefix ? `${prefix}.${key}` : key, child, into, file);
}

/** One language's catalogue read from its file (the catalogue test reads them all this way). */
export function readCatalogue(language: string): Catalogue {
  const file = new URL(`${language}.json`, catalogueDir);
  const messages = new Map<string, string>();
  flatten("", JSON.parse(fs.readFileSync(file, "utf8")), messages, `catalogues/${language}.json`);
  return messages;
}

const loaded = new Map<string, Catalogue>();

/** The catalogue of a language, read once per process. */
export function catalogueOf(language: string): Catalogue {
  let catalogue = loaded.get(language);
  if (!catalogue) {
    if (!languages.includes(language)) throw new Error(`no catalogue for language ${language}`);
    catalogue = readCatalogue(language);
    loaded.set(language, catalogue);
  }
  return catalogue;
}

export const baseCatalogue = (): Catalogue => catalogueOf(baseLanguage);

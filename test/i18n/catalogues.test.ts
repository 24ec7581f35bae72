// The catalogues cannot drift (issue: the shop's language): every language has exactly the base
// language's keys, each message has the same placeholders of the same kinds as English, covers
// its own language's plural categories, and is written in that language rather than copied.
import { type MessageFormatElement, parse, TYPE } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { readCatalogue } from "../../src/i18n/catalogue.ts";
import { baseLanguage, languages, negotiateLanguage, pseudoLocale } from "../../src/i18n/languages.ts";
import { translator } from "../../src/i18n/translator.ts";

const base = readCatalogue(baseLanguage);
const others = languages.filter((l) => l !== baseLanguage);

/** "name:kind" of each placeholder, and "name:kind:option" of each plural or select branch. */
function shape(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const e of elements) {
    if (e.type === TYPE.literal || e.type === TYPE.pound) continue;
    if (e.type === TYPE.tag) {
      into.add(`<${e.value}>`);
      shape(e.children, into);
    } else if (e.type === TYPE.plural) {
      into.add(`${e.value}:plural`);
      for (const option of Object.values(e.options)) shape(option.value, into);
    } else if (e.type === TYPE.select) {
      into.add(`${e.value}:select`);
      for (const [key, option] of Object.entries(e.options)) {
        into.add(`${e.value}:select:${key}`);
        shape(option.value, into);
      }
    } else {
      into.add(`${e.value}:${TYPE[e.type]}`);
    }
  }
  return into;
}

function pluralBranches(elements: MessageFormatElement[], into: Array<Set<string>> = []): Array<Set<string>> {
  for (const e of elements) {
    if (e.type === TYPE.plural && e.pluralType !== "ordinal") {
      into.push(new Set(Object.keys(e.options)));
      for (const option of Object.values(e.options)) pluralBranches(option.value, into);
    } else if (e.type === TYPE.select) {
      for (const option of Object.values(e.options)) pluralBranches(option.value, into);
    } else if (e.type === TYPE.tag) pluralBranches(e.children, into);
  }
  return into;
}

describe("the catalogues", () => {
  it("are at least the eight languages of CONTRACT 12, one file each", () => {
    expect([...languages].sort()).toEqual(
      expect.arrayContaining(["de", "en", "es", "fr", "it", "nl", "pl", "pt"]),
    );
    expect(languages[0]).toBe(baseLanguage);
  });

  it.each(others)("%s has exactly the base language's keys", (language) => {
    const catalogue = readCatalogue(language);
    const missing = [...base.keys()].filter((k) => !catalogue.has(k));
    const extra = [...catalogue.keys()].filter((k) => !base.has(k));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it.each(others)("%s uses the same placeholders as the base language in every message", (language) => {
    const catalogue = readCatalogue(language);
    const differing = [...base].flatMap(([key, message]) => {
      const translated = catalogue.get(key);
      if (translated === undefined) return [];
      const want = [...shape(parse(message))].sort();
      const got = [...shape(parse(translated))].sort();
      return JSON.stringify(want) === JSON.stringify(got) ? [] : [{ key, want, got }];
    });
    expect(differing).toEqual([]);
  });

  it.each(languages)("%s gives every plural the categories its language needs", (language) => {
    const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    const short = [...readCatalogue(language)].flatMap(([key, message]) =>
      pluralBranches(parse(message)).flatMap((options) =>
        // An exact branch (=0, =1) may stand in for nothing: every category needs its own.
        needed.filter((c) => !options.has(c)).map((category) => ({ key, category })),
      ),
    );
    expect(short).toEqual([]);
  });

  it.each(others)(
    "%s is written in its language: at most a quarter of its messages equal English",
    (language) => {
      const catalogue = readCatalogue(language);
      const same = [...base].filter(([key, message]) => catalogue.get(key) === message).map(([key]) => key);
      expect(same.length, `${language} copies English for ${same.join(", ")}`).toBeLessThanOrEqual(
        base.size / 4,
      );
    },
  );
});

describe("a translator", () => {
  it("formats plurals by the language's own rules", () => {
    const pl = translator("pl");
    expect([1, 2, 5, 22, 25].map((count) => pl.t("common.itemCount", { count }))).toEqual([
      "1 pozycja",
      "2 pozycje",
      "5 pozycji",
      "22 pozycje",
      "25 pozycji",
    ]);
    expect(translator("en").t("common.itemCount", { count: 1 })).toBe("1 item");
  });

  it("refuses a key the base catalogue lacks, so a typo fails its test instead of shipping", () => {
    expect(() => translator("de").t("common.noSuchKey")).toThrow(/no message "common.noSuchKey"/);
  });

  it("formats dates, numbers and lists through Intl in the reader's language", () => {
    const at = new Date("2027-06-12T14:30:00Z");
    expect(translator("de").date(at, "Europe/Berlin")).toBe("12. Juni 2027");
    expect(translator("de").time(at, "Europe/Berlin")).toBe("16:30");
    expect(translator("fr").number(1234.5)).toBe("1\u202f234,5");
    expect(translator("nl").list(["A", "B", "C"])).toBe("A, B en C");
  });

  it("writes the pseudo-locale accented and at least 40 % longer, placeholders intact", () => {
    const pseudo = translator(pseudoLocale);
    for (const [key, message] of base) {
      if (parse(message).some((e) => e.type !== TYPE.literal)) continue;
      const text = pseudo.t(key);
      expect(text.length, key).toBeGreaterThanOrEqual(Math.floor(message.length * 1.4));
      expect(text, key).not.toMatch(/[A-Za-z]/);
    }
    expect(pseudo.t("common.itemCount", { count: 3 })).toMatch(/^\[3 îţéɱš/);
  });
});

describe("the reader's language from Accept-Language", () => {
  it.each([
    ["de-AT,de;q=0.9,en;q=0.5", "de"],
    ["pt-BR", "pt"],
    ["fr-CH, fr;q=0.9, en;q=0.8", "fr"],
    ["ja, nl;q=0.3", "nl"],
    ["ja", "it"],
    ["", "it"],
    ["*", "it"],
    [";;;q=x,\u0000", "it"],
  ])("%j gives %s (the shop's language, here it, when none matches)", (header, want) => {
    expect(negotiateLanguage(header, "it")).toBe(want);
  });
});

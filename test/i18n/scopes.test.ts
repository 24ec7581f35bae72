// A scope's description has one home, the catalogues' `scopes` section: the dashboard reads it in
// the member's language, the OpenAPI document in English, and no language lacks one.
import { describe, expect, it } from "vitest";
import { allScopes, scopeDescription, scopeDescriptions } from "../../src/auth/scopes.ts";
import { languages } from "../../src/i18n/languages.ts";
import { translator } from "../../src/i18n/translator.ts";

describe("scope descriptions", () => {
  it("English for developers comes from the English catalogue", () => {
    expect(scopeDescriptions["orders:read"]).toBe("Read your orders and their status history");
    for (const scope of allScopes)
      expect(scopeDescriptions[scope]).toBe(scopeDescription(translator("en"), scope));
  });

  it("a German member reads German, and every language has its own words for every scope", () => {
    expect(scopeDescription(translator("de"), "orders:read")).not.toBe(scopeDescriptions["orders:read"]);
    expect(scopeDescription(translator("de"), "customers:write")).toMatch(/Kund/);
    for (const language of languages.filter((l) => l !== "en")) {
      for (const scope of allScopes) {
        expect(scopeDescription(translator(language), scope), `${language} ${scope}`).not.toBe(
          scopeDescriptions[scope],
        );
      }
    }
  });
});

import { describe, expect, it } from "vitest";
import type { ApiTag } from "../../src/http/api-tags.ts";
import { finishDocument } from "../../src/openapi/document.ts";

// A resource declares its tag beside its routes (declareApiTag); the document lists the tags its
// operations use, with those descriptions, and nothing in src/openapi/ names a resource's tag.
function documentWith(operationTags: string[][], tags: Record<string, ApiTag>) {
  const paths = Object.fromEntries(
    operationTags.map((t, i) => [`/api/vendor/r${i}`, { get: { tags: t, responses: {} } }]),
  );
  return finishDocument(
    { paths },
    { errorCodes: new Map(), tags: new Map(Object.entries(tags)) },
    () => ({}),
  );
}

describe("the document's tags", () => {
  it("lists the used tags in the order operations first use them, those declared last after the rest", () => {
    const doc = documentWith([["Health"], ["Gowns"], ["Fittings"], ["Gowns"]], {
      Health: { description: "Health", last: true },
      Gowns: { description: "Gowns and their workflow" },
      Fittings: { description: "Fittings" },
      Unused: { description: "Declared by a module whose routes are not registered" },
    });
    expect(doc.tags).toEqual([
      { name: "Gowns", description: "Gowns and their workflow" },
      { name: "Fittings", description: "Fittings" },
      { name: "Health", description: "Health" },
    ]);
  });

  it("refuses a tag an operation uses that no module declared", () => {
    expect(() => documentWith([["Gowns"]], {})).toThrow(/Gowns is used but never declared/);
  });
});

// Component names are given where each schema is declared (src/http/schema-names.ts): each name
// once, or two schemas would be documented as one component.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { isComponentName, named, namedObject } from "../../src/http/schema-names.ts";
import { componentExample, hoist } from "../../src/openapi/components.ts";
import { schemaExamples } from "../../src/openapi/examples.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("schema names", () => {
  it("names a schema by its title, without touching what it validates", () => {
    const schema = namedObject("SchemaNamesProbe", { id: Type.String() }, { description: "A probe" });
    expect(schema).toMatchObject({ title: "SchemaNamesProbe", type: "object", description: "A probe" });
    expect(Object.keys(schema).at(-1)).toBe("title");
    expect(isComponentName("SchemaNamesProbe")).toBe(true);
    expect(isComponentName("SchemaNamesUnnamed")).toBe(false);
    expect(named("SchemaNamesEnum", Type.String()).title).toBe("SchemaNamesEnum");
  });

  it("gives each component name to one declaration in src/", () => {
    const counts = new Map<string, string[]>();
    for (const file of sourceFiles("src")) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bnamed(?:Object)?\(\s*"([A-Za-z0-9]+)"/g)) {
        counts.set(m[1] as string, [...(counts.get(m[1] as string) ?? []), file]);
      }
    }
    expect(counts.size).toBeGreaterThan(40);
    const twice = [...counts].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
  });
});

describe("a named schema's example", () => {
  it("is the one given at its declaration, else the bridal shop's story", () => {
    const components: Record<string, unknown> = {};
    const probe = namedObject("SchemaNamesExample", { id: Type.String() }, undefined, { id: "p1" });
    expect(hoist({ type: "array", items: probe }, components)).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/SchemaNamesExample" },
    });
    expect(components.SchemaNamesExample).toMatchObject({
      title: "SchemaNamesExample",
      examples: [{ id: "p1" }],
    });
    expect(componentExample("SchemaNamesExample")).toEqual({ id: "p1" });
    expect(componentExample("Order")).toEqual(schemaExamples.Order);
  });
});

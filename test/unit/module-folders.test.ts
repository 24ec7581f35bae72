// The layers check's rules for src/modules (.dependency-cruiser.cjs), run by dependency-cruiser on
// small trees written for each test: a circle of module folders fails even when no file circle
// closes it, and no module imports src/modules/use-cases/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type IForbiddenRuleType } from "dependency-cruiser";
import { afterEach, describe, expect, it } from "vitest";

const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as {
  forbidden: IForbiddenRuleType[];
};
const rules = config.forbidden.filter((r) =>
  ["no-module-folder-circle", "use-cases-on-top"].includes(r.name ?? ""),
);

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path → the paths it imports) under a new directory; cruises its src/. */
async function violations(files: Record<string, string[]>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), "module-folders-"));
  roots.push(root);
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    const lines = imports.map((to, i) => `import { v as v${i} } from "${to}";\nvoid v${i};`);
    writeFileSync(join(root, path), `${lines.join("\n")}\nexport const v = 1;\n`);
  }
  const result = await cruise(["src"], {
    baseDir: root,
    ruleSet: { forbidden: rules },
    validate: true,
    enhancedResolveOptions: { extensions: [".ts"] },
  });
  if (typeof result.output === "string") throw new Error(result.output);
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe("module folders import one way", () => {
  it("passes a tree whose folders import one way", async () => {
    expect(
      await violations({
        "src/modules/orders/orders.service.ts": ["../customers/customers.repository.ts"],
        "src/modules/customers/customers.repository.ts": [],
        "src/modules/use-cases/erasure.ts": [
          "../orders/orders.service.ts",
          "../customers/customers.repository.ts",
        ],
      }),
    ).toEqual([]);
  });

  it("fails a circle of two folders that no file circle closes", async () => {
    const found = await violations({
      "src/modules/orders/orders.repository.ts": ["../customers/customers.repository.ts"],
      "src/modules/customers/customers.repository.ts": [],
      "src/modules/customers/customers.service.ts": ["../orders/order-alerts.ts"],
      "src/modules/orders/order-alerts.ts": [],
    });
    expect(found).toContain("no-module-folder-circle: src/modules/customers -> src/modules/orders");
    expect(found).toContain("no-module-folder-circle: src/modules/orders -> src/modules/customers");
  });

  it("fails a circle of three folders", async () => {
    const found = await violations({
      "src/modules/today/today.ts": ["../orders/orders.ts"],
      "src/modules/orders/orders.ts": ["../customers/customers.ts"],
      "src/modules/customers/customers.ts": ["../today/view.ts"],
      "src/modules/today/view.ts": [],
    });
    expect(found.filter((v) => v.startsWith("no-module-folder-circle:"))).toHaveLength(3);
  });

  it("fails a module importing use-cases/, circle or not", async () => {
    const found = await violations({
      "src/modules/sandbox/sandbox.ts": ["../use-cases/reset.ts"],
      "src/modules/use-cases/reset.ts": [],
    });
    expect(found).toEqual([
      "use-cases-on-top: src/modules/sandbox/sandbox.ts -> src/modules/use-cases/reset.ts",
    ]);
  });
});

// CI fails when the TypeScript client's generated types drift from the document: regenerate them
// from the document the service serves now and compare with the committed files.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

describe("clients/typescript", () => {
  it("its committed document and generated types match the service's document (run its npm run generate)", () => {
    const dir = mkdtempSync(join(tmpdir(), "vendor-api-client-"));
    try {
      const doc = join(dir, "openapi.json");
      execFileSync(process.execPath, ["--import", "tsx", "scripts/openapi-dump.ts", doc], { cwd: root });
      expect(readFileSync(doc, "utf8")).toBe(
        readFileSync(join(root, "clients/typescript/openapi.json"), "utf8"),
      );
      const types = join(dir, "schema.d.ts");
      execFileSync(join(root, "node_modules/.bin/openapi-typescript"), [doc, "-o", types], {
        cwd: root,
        stdio: "pipe",
      });
      expect(readFileSync(types, "utf8")).toBe(
        readFileSync(join(root, "clients/typescript/src/schema.d.ts"), "utf8"),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

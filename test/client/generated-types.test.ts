// CI fails when the TypeScript client's generated types drift from the document: regenerate them
// from the document the service serves now and compare with the committed files.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocumentText } from "../../scripts/openapi-dump.ts";
import { openTestDatabase } from "../helpers/test-app.ts";

const root = join(import.meta.dirname, "../..");

describe("clients/typescript", () => {
  it("its committed document and generated types match the service's document (run its npm run generate)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vendor-api-client-"));
    // The document `npm run client:generate` writes, built here by the same function in this
    // process (the suite's modules are loaded already; a child under tsx cost ~5 s of CPU).
    const database = await openTestDatabase();
    try {
      const doc = join(dir, "openapi.json");
      writeFileSync(doc, await openApiDocumentText(database));
      expect(readFileSync(doc, "utf8")).toBe(
        readFileSync(join(root, "clients/typescript/openapi.json"), "utf8"),
      );
      const types = join(dir, "schema.d.ts");
      execFileSync(
        join(root, "node_modules/.bin/openapi-typescript"),
        [doc, "--default-non-nullable", "false", "-o", types],
        {
          cwd: root,
          stdio: "pipe",
        },
      );
      expect(readFileSync(types, "utf8")).toBe(
        readFileSync(join(root, "clients/typescript/src/schema.d.ts"), "utf8"),
      );
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

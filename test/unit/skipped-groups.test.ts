// The line `npm test` ends with names each group that could not run here, with the reason.
import { describe, expect, it } from "vitest";
import { skippedLine } from "../helpers/skipped-groups.ts";

const group = (name: string, missing: boolean) => ({ name, missing: () => missing, why: `no ${name}` });

describe("the skipped-groups line", () => {
  it("says nothing was skipped when every test ran", () => {
    expect(skippedLine(0, [group("browser tests", true)])).toBe(
      "Skipped: nothing; every group of tests ran.",
    );
  });

  it("names every missing group with its reason, and no present one", () => {
    const line = skippedLine(12, [group("browser tests", true), group("PgBouncer tests", false)]);
    expect(line).toBe("Skipped: 12 tests: browser tests (no browser tests).");
    expect(line).not.toContain("PgBouncer");
  });
});

// Ids keep the CUID2 shape every resource promises (CONTRACT 1) and the validator accepts, and are
// unpredictable: drawn from the CSPRNG, every position takes every allowed character.
import { isCuid } from "@paralleldrive/cuid2";
import { describe, expect, it } from "vitest";
import { isId, newId } from "../../src/lib/ids.ts";

describe("newId", () => {
  const ids = Array.from({ length: 20_000 }, () => newId());

  it("is a letter then 23 lowercase letters or digits, a valid CUID2 and a valid id", () => {
    // One expectation over all of them: the ids that fail, none (an expect per id was 60,000).
    const shape = /^[a-z][a-z0-9]{23}$/;
    expect(ids.filter((id) => !shape.test(id))).toEqual([]);
    expect(ids.filter((id) => !isCuid(id))).toEqual([]);
    expect(ids.filter((id) => !isId(id))).toEqual([]);
  });

  it("never repeats", () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses every letter first and every character at every later position, about evenly", () => {
    const first = new Map<string, number>();
    for (const id of ids) first.set(id[0] as string, (first.get(id[0] as string) ?? 0) + 1);
    expect(first.size).toBe(26);
    // 20,000 / 26 ≈ 769 each; a biased or stuck generator falls far outside these bounds.
    for (const n of first.values()) expect(n).toBeGreaterThan(600);
    for (let pos = 1; pos < 24; pos++) {
      const seen = new Map<string, number>();
      for (const id of ids) seen.set(id[pos] as string, (seen.get(id[pos] as string) ?? 0) + 1);
      expect(seen.size).toBe(36);
      for (const n of seen.values()) expect(n).toBeGreaterThan(400); // ≈ 556 expected
    }
  });
});

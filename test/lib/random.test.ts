// The batched CSPRNG behind ids, tokens and secrets (src/lib/random.ts): what it hands out is the
// caller's own copy and never handed out twice; every byte value comes up.
import { describe, expect, it } from "vitest";
import { generateSecret } from "../../src/lib/crypto.ts";
import { secureRandomByte, secureRandomBytes } from "../../src/lib/random.ts";

describe("secureRandomBytes", () => {
  it("hands out 32-byte secrets that never repeat, across many batches", () => {
    const seen = new Set(Array.from({ length: 5_000 }, () => secureRandomBytes(32).toString("hex")));
    expect(seen.size).toBe(5_000);
  });

  it("returns a copy: changing it changes nothing that is handed out later", () => {
    const first = secureRandomBytes(16);
    first.fill(0xab);
    const next = secureRandomBytes(16);
    expect(next.equals(Buffer.alloc(16, 0xab))).toBe(false);
    expect(next.equals(Buffer.alloc(16, 0))).toBe(false);
  });

  it("gives every byte value, about evenly", () => {
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 256 * 200; i++) counts[secureRandomByte()]++;
    // 200 expected each; a stuck or biased source falls far outside.
    for (const n of counts) expect(n).toBeGreaterThan(120);
    for (const n of counts) expect(n).toBeLessThan(290);
  });

  it("large requests come straight from the operating system, still unique", () => {
    expect(secureRandomBytes(8_192).equals(secureRandomBytes(8_192))).toBe(false);
  });

  it("secrets keep their 256 bits: 43 base64url characters after the prefix", () => {
    expect(generateSecret("vk_")).toMatch(/^vk_[A-Za-z0-9_-]{43}$/);
  });
});

import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ config: { signInRateLimitPerMinute: 3 } });

describe("sign-in pages are rate-limited per client address (CONTRACT 8)", () => {
  it("every answer carries both header sets; past the budget the page answers 429 with Retry-After", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${t.url}/login`);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(2 - i));
      expect(res.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
      expect(res.headers.get("ratelimit-policy")).toContain('"sign-in";q=3;w=60');
      expect(res.headers.get("ratelimit")).toMatch(/^"sign-in";r=\d+;t=\d+$/);
    }
    const limited = await fetch(`${t.url}/login`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(limited.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await limited.text()).toContain("Too many requests");
  });
});

// Five wrong passwords from anywhere must not lock a vendor out of the dashboard and OAuth consent:
// failures count per account *and* address. TRUST_PROXY lets the test speak from
// several client addresses through X-Forwarded-For.
import { describe, expect, it } from "vitest";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ env: { TRUST_PROXY: "true", SIGN_IN_FAILURES_PER_ACCOUNT: "5" } });

async function signIn(address: string, email: string, password: string) {
  const headers = { "x-forwarded-for": address };
  const page = await fetch(`${t.url}/login`, { headers });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return fetch(`${t.url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
}

describe("sign-in lockout is per account and address", () => {
  it("a stranger's wrong passwords lock only the stranger's address: the vendor still signs in", async () => {
    const vendor = await createVendor(t.ctx);
    for (let i = 0; i < 6; i++) await signIn("203.0.113.66", vendor.email, `guess ${i}`);
    expect((await signIn("203.0.113.66", vendor.email, TEST_PASSWORD)).status).toBe(429);
    const genuine = await signIn("203.0.113.7", vendor.email, TEST_PASSWORD);
    expect(genuine.status).toBe(303);
    expect(genuine.headers.getSetCookie().some((c) => c.startsWith("vendor_session="))).toBe(true);
  });

  it("strangers at many addresses cannot lock the vendor out either", async () => {
    const vendor = await createVendor(t.ctx);
    for (let a = 1; a <= 5; a++) {
      for (let i = 0; i < 5; i++) await signIn(`203.0.113.${100 + a}`, vendor.email, `guess ${a}-${i}`);
    }
    expect((await signIn("203.0.113.8", vendor.email, TEST_PASSWORD)).status).toBe(303);
  });
});

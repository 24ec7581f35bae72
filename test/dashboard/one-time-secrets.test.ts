// One-time secrets never travel in a cookie: a new API key, client secret or webhook
// secret waits sealed in the session for the next page, is shown there once, and is gone after.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dashboardSessions } from "../../src/db/schema/index.ts";
import { Browser } from "../helpers/browser.ts";
import { flashOf, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const I = "/dashboard/integrations";

async function setCookiesOf(res: { headers: Headers }) {
  return res.headers.getSetCookie().join("\n");
}

describe("one-time secrets in the dashboard", () => {
  for (const [what, from, action, form, prefix] of [
    ["API key", `${I}/api-keys`, `${I}/api-keys`, { name: "POS" }, "vk_"],
    [
      "client secret",
      `${I}/applications`,
      `${I}/applications`,
      { name: "App", redirectUris: "https://client.example/cb" },
      "vcs_",
    ],
    [
      "webhook secret",
      `${I}/webhooks`,
      `${I}/webhooks`,
      { url: "http://127.0.0.1:9/h", events: "order.created" },
      "whsec_",
    ],
  ] as const) {
    it(`a new ${what} is in no cookie, is shown once on the next page, and is not stored readable`, async () => {
      const { vendor, browser } = await signedInVendor(t);
      const res = await postFrom(browser, from, action, { ...form });
      expect(res.status).toBe(303);
      const cookiesSet = await setCookiesOf(res);

      // At rest: the session row holds only a sealed value while the secret waits.
      const [row] = await t.database.db
        .select({ pending: dashboardSessions.pendingSecret })
        .from(dashboardSessions)
        .where(eq(dashboardSessions.vendorId, vendor.id));
      expect(row?.pending).toBeTruthy();

      const page = await browser.get(res.location ?? "");
      const secret = flashOf(page)?.secret ?? "";
      expect(secret.startsWith(prefix)).toBe(true);
      expect(page.headers.get("cache-control")).toBe("no-store");
      expect(cookiesSet).not.toContain(secret);
      expect(cookiesSet).not.toContain(encodeURIComponent(secret));
      expect(row?.pending).not.toContain(secret);
      expect([...browser.cookies.values()].join(" ")).not.toContain(secret);

      // Read once: a reload shows it no more, and the row no longer holds it.
      expect((await browser.get(res.location ?? "")).text).not.toContain(secret);
      const [after] = await t.database.db
        .select({ pending: dashboardSessions.pendingSecret })
        .from(dashboardSessions)
        .where(eq(dashboardSessions.vendorId, vendor.id));
      expect(after?.pending).toBeNull();
    });
  }

  it("a copied flash cookie shows nothing in another session of the same vendor", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const res = await postFrom(browser, `${I}/api-keys`, `${I}/api-keys`, { name: "POS" });
    const other = new Browser(t.url);
    const login = await other.get("/login");
    await other.submit(login, { email: vendor.email, password: "correct horse battery staple" });
    for (const [name, value] of browser.cookies) if (name.includes("flash")) other.cookies.set(name, value);
    const stolen = await other.get(res.location ?? "");
    expect(flashOf(stolen)?.secret).toBeUndefined();
    // The rightful session still gets it.
    expect(flashOf(await browser.get(res.location ?? ""))?.secret).toMatch(/^vk_/);
  });
});

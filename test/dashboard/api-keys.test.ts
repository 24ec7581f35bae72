import { describe, expect, it } from "vitest";
import { listApiKeysOfVendor } from "../../src/modules/api-keys/api-keys.service.ts";
import { Browser } from "../helpers/browser.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  postFrom,
  signedInVendor,
  XSS,
  XSS_ESCAPED,
} from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const PAGE = "/dashboard/integrations/api-keys";

describe("dashboard: API keys page", () => {
  it("is behind sign-in: a stranger is sent to /login and back", async () => {
    const res = await new Browser(t.url).get(PAGE);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/login?return_to=${encodeURIComponent(PAGE)}`);
  });

  it("shows an empty state before any key exists", async () => {
    const { browser } = await signedInVendor(t);
    const page = await browser.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.text).toContain("No API keys yet");
  });

  it("creates a scoped key shown once, which works against the API within its scopes, then revokes it", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const created = await postFrom(browser, PAGE, PAGE, { name: "Back office", scopes: ["orders:read"] });
    const page = await follow(browser, created);
    const flash = flashOf(page);
    expect(flash?.kind).toBe("success");
    expect(flash?.text).toContain("Back office");
    const key = flash?.secret ?? "";
    expect(key).toMatch(/^vk_/);
    // Listed with its prefix and scopes, and the key itself is shown only that once.
    expect(page.text).toContain(`<code class="nowrap">${key.slice(0, 10)}…</code>`);
    expect(page.text).toContain(`<span class="badge">orders:read</span>`);
    const again = await browser.get(PAGE);
    expect(again.text).not.toContain(key);
    expect(flashOf(again)).toBeUndefined();

    expect((await t.api.get("/api/vendor/orders", { key })).status).toBe(200);
    expect((await t.api.get("/api/vendor/customers", { key })).status).toBe(403);
    // The use shows as "last used".
    const [summary] = await listApiKeysOfVendor(t.ctx, vendor.id);
    await expect
      .poll(async () => (await listApiKeysOfVendor(t.ctx, vendor.id))[0]?.lastUsedAt)
      .not.toBeNull();
    const used = await browser.get(PAGE);
    expect(used.text).toMatch(/<td><time datetime="[^"]+">/);

    const revoked = await confirmThrough(browser, `${PAGE}/${summary?.id}/revoke`);
    const after = await follow(browser, revoked);
    expect(flashOf(after)?.text).toContain("API key revoked");
    expect(after.text).toContain(`<span class="badge">Revoked</span>`);
    expect((await t.api.get("/api/vendor/orders", { key })).status).toBe(401);
  });

  it("only the page showing the key once may run our own copy script; every other page runs none", async () => {
    const { browser } = await signedInVendor(t);
    const shown = await follow(browser, await postFrom(browser, PAGE, PAGE, { name: "Copy me" }));
    expect(shown.headers.get("content-security-policy")).toMatch(/default-src 'none';.*; script-src 'self'$/);
    expect(shown.text).toContain(`<script src="/assets/copy-secret.js" defer></script>`);
    expect(shown.text).toContain(`<button type="button" data-copy hidden>Copy</button>`);
    const later = await browser.get(PAGE);
    expect(later.headers.get("content-security-policy")).not.toContain("script-src");
    expect(later.text).not.toContain("<script");
    const script = await browser.get("/assets/copy-secret.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(script.text).toContain("navigator.clipboard.writeText");
  });

  it("a key without ticked scopes has every scope", async () => {
    const { browser } = await signedInVendor(t);
    const page = await follow(browser, await postFrom(browser, PAGE, PAGE, { name: "All" }));
    const key = flashOf(page)?.secret ?? "";
    expect(page.text).toContain("All scopes");
    expect((await t.api.get("/api/vendor/customers", { key })).status).toBe(200);
  });

  it("refuses an empty name or an unknown scope with an error flash; a NUL in the name is refused too, never a 500", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const empty = await follow(browser, await postFrom(browser, PAGE, PAGE, { name: "  " }));
    expect(flashOf(empty)).toMatchObject({ kind: "error" });
    expect(flashOf(empty)?.text).toContain("name must be 1-100 characters");
    const unknown = await follow(
      browser,
      await postFrom(browser, PAGE, PAGE, { name: "x", scopes: "admin" }),
    );
    expect(flashOf(unknown)?.text).toContain("unknown scope admin");
    const nul = await follow(browser, await postFrom(browser, PAGE, PAGE, { name: "a\u0000b" }));
    expect(flashOf(nul)?.kind).toBe("error");
    expect(flashOf(nul)?.text).toContain("name must not contain the NUL character");
    expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toHaveLength(0);
  });

  it("another vendor's key id is a 404 page and the key keeps working", async () => {
    const owner = await signedInVendor(t);
    const other = await signedInVendor(t);
    const created = await follow(owner.browser, await postFrom(owner.browser, PAGE, PAGE, { name: "Mine" }));
    const key = flashOf(created)?.secret ?? "";
    const [row] = await listApiKeysOfVendor(t.ctx, owner.vendor.id);
    expect((await other.browser.get(`${PAGE}/${row?.id}/revoke`)).status).toBe(404);
    const res = await postFrom(other.browser, PAGE, `${PAGE}/${row?.id}/revoke`, { confirmed: "yes" });
    expect(res.status).toBe(404);
    expect(res.text).toContain("<h1>Not found</h1>");
    expect(
      (await postFrom(other.browser, PAGE, `${PAGE}/not-an-id/revoke`, { confirmed: "yes" })).status,
    ).toBe(404);
    expect((await t.api.get("/api/vendor/orders", { key })).status).toBe(200);
    expect((await listApiKeysOfVendor(t.ctx, owner.vendor.id))[0]?.revokedAt).toBeNull();
  });

  it("renders a stored key name escaped", async () => {
    const { browser } = await signedInVendor(t);
    const page = await follow(browser, await postFrom(browser, PAGE, PAGE, { name: XSS }));
    expect(page.text).toContain(XSS_ESCAPED);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).not.toContain("<img src=x");
  });
});

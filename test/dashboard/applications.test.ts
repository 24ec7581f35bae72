import { describe, expect, it } from "vitest";
import { listApplications } from "../../src/modules/applications/applications.service.ts";
import { listConnectedApplications } from "../../src/modules/connections/connections.service.ts";
import { findVendor } from "../../src/modules/use-cases/vendor-accounts.service.ts";
import type { Browser } from "../helpers/browser.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  postFrom,
  signedInVendor,
  XSS,
  XSS_ESCAPED,
} from "../helpers/dashboard.ts";
import {
  authorizeCode,
  type Client,
  exchangeCode,
  obtainTokens,
  REDIRECT_URI,
  signedInBrowser,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const APPS = "/dashboard/integrations/applications";
const CONNECTED = "/dashboard/integrations/connected-apps";

/**
 * Registers a public application through the page (the tests authorize it as other shops);
 * returns it as the OAuth helpers' Client.
 */
async function register(browser: Browser, vendorId: string, name = "Bridal POS", uris = REDIRECT_URI) {
  const page = await follow(
    browser,
    await postFrom(browser, APPS, APPS, { name, redirectUris: uris, public: "true" }),
  );
  const flash = flashOf(page);
  expect(flash?.kind).toBe("success");
  const application = (await listApplications(t.ctx, vendorId))[0];
  if (!application || !flash?.secret) throw new Error(`not registered: ${flash?.text}`);
  return {
    page,
    client: { clientId: application.clientId, clientSecret: flash.secret, application } as Client,
  };
}

describe("dashboard: applications page", () => {
  it("shows an empty state, then registers an application whose client secret is shown once and works", async () => {
    const { vendor, browser } = await signedInVendor(t);
    expect((await browser.get(APPS)).text).toContain("No applications yet");
    const { page, client } = await register(
      browser,
      vendor.id,
      "Bridal POS",
      `${REDIRECT_URI}\r\n\r\nhttp://127.0.0.1:8123/cb\r\n`,
    );
    expect(page.text).toContain(`<code>${client.clientId}</code>`);
    expect(page.text).toContain(`<li><code>http://127.0.0.1:8123/cb</code></li>`);
    expect(client.application.redirectUris).toEqual([REDIRECT_URI, "http://127.0.0.1:8123/cb"]);
    expect(flashOf(page)?.text).toContain(client.clientId);
    expect((await browser.get(APPS)).text).not.toContain(client.clientSecret);
    const tokens = await obtainTokens(t, client, "orders:read");
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
  });

  it("refuses redirect URIs CONTRACT 6 forbids, with the service's reason, registering nothing", async () => {
    const { vendor, browser } = await signedInVendor(t);
    for (const [uris, reason] of [
      ["http://client.example/cb", "must use https"],
      ["https://client.example/cb#frag", "must not contain a fragment"],
      ["not a url", "must be an absolute URL"],
      ["", "must list 1-10 URIs"],
    ]) {
      const page = await follow(
        browser,
        await postFrom(browser, APPS, APPS, { name: "X", redirectUris: uris ?? "" }),
      );
      expect(flashOf(page)).toMatchObject({ kind: "error" });
      expect(flashOf(page)?.text).toContain(reason);
    }
    expect(await listApplications(t.ctx, vendor.id)).toEqual([]);
  });

  it("rotating the client secret shows the new one once; the old one stops working", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { client } = await register(browser, vendor.id);
    const rotated = await follow(
      browser,
      await confirmThrough(browser, `${APPS}/${client.application.id}/rotate-secret`),
    );
    const secret = flashOf(rotated)?.secret ?? "";
    expect(secret).toMatch(/^vcs_/);
    expect(secret).not.toBe(client.clientSecret);
    expect((await browser.get(APPS)).text).not.toContain(secret);
    const old = await authorizeCode(t, client);
    expect((await exchangeCode(t, client, old.code, old.verifier)).status).toBe(401);
    const fresh = await authorizeCode(t, { ...client, clientSecret: secret });
    expect(
      (await exchangeCode(t, { ...client, clientSecret: secret }, fresh.code, fresh.verifier)).status,
    ).toBe(200);
  });

  it("deleting an application ends the tokens it holds", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { client } = await register(browser, vendor.id);
    const tokens = await obtainTokens(t, client);
    const page = await follow(
      browser,
      await confirmThrough(browser, `${APPS}/${client.application.id}/delete`),
    );
    expect(flashOf(page)?.text).toContain("Application deleted");
    expect(page.text).toContain("No applications yet");
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
  });

  it("another vendor's application id is a 404 page for rotate and delete, and nothing changes", async () => {
    const owner = await signedInVendor(t);
    const other = await signedInVendor(t);
    const { client } = await register(owner.browser, owner.vendor.id);
    for (const action of ["rotate-secret", "delete"]) {
      expect((await other.browser.get(`${APPS}/${client.application.id}/${action}`)).status).toBe(404);
      const confirmed = { confirmed: "yes" };
      const res = await postFrom(
        other.browser,
        APPS,
        `${APPS}/${client.application.id}/${action}`,
        confirmed,
      );
      expect(res.status).toBe(404);
      expect((await postFrom(other.browser, APPS, `${APPS}/nope/${action}`, confirmed)).status).toBe(404);
    }
    const [still] = await listApplications(t.ctx, owner.vendor.id);
    expect(still?.clientSecretHash).toBe(client.application.clientSecretHash);
    expect((await other.browser.get(APPS)).text).not.toContain(client.clientId);
  });

  it("renders a stored application name and redirect URI escaped", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const uri = `https://client.example/cb?x=${XSS}`;
    const { page } = await register(browser, vendor.id, XSS, uri);
    expect(page.text).toContain(`<h2>${XSS_ESCAPED}</h2>`);
    expect(page.text).toContain(`<li><code>https://client.example/cb?x=${XSS_ESCAPED}</code></li>`);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).not.toContain("<img src=x");
  });
});

describe("dashboard: connected applications page", () => {
  it("lists the applications the vendor authorized with scopes and last token; revoking one ends its tokens", async () => {
    const owner = await signedInVendor(t, "App Maker");
    const { client } = await register(owner.browser, owner.vendor.id, XSS);
    const tokens = await obtainTokens(t, client, "orders:read profile:read");
    const browser = await signedInBrowser(t, tokens.email);
    const vendor = await findVendor(t.ctx, tokens.email);
    const page = await browser.get(CONNECTED);
    expect(page.text).toContain(XSS_ESCAPED);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).toContain(`<span class="badge">orders:read</span>`);
    expect(page.text).toContain(`<span class="badge">profile:read</span>`);
    expect(page.text).toMatch(/<td><time datetime="[^"]+">/);
    // The owner authorized nothing, and cannot revoke this vendor's grant.
    expect((await owner.browser.get(CONNECTED)).text).toContain("No application has access");
    expect((await owner.browser.get(`${CONNECTED}/${client.application.id}/revoke`)).status).toBe(404);
    const denied = await postFrom(owner.browser, CONNECTED, `${CONNECTED}/${client.application.id}/revoke`, {
      confirmed: "yes",
    });
    expect(denied.status).toBe(404);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);

    const revoked = await follow(
      browser,
      await confirmThrough(browser, `${CONNECTED}/${client.application.id}/revoke`),
    );
    expect(flashOf(revoked)?.text).toContain("Access revoked");
    expect(revoked.text).toContain("No application has access");
    expect(await listConnectedApplications(t.ctx, vendor?.id ?? "")).toEqual([]);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
  });
});

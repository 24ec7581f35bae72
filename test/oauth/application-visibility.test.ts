// Issue 28 item 7: an application is private to the shop that registered it unless that shop
// marks it public, and the consent page names the shop that publishes it.
import { describe, expect, it } from "vitest";
import {
  createApplication,
  setApplicationPublic,
} from "../../src/modules/applications/applications.service.ts";
import { confirmThrough, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createVendor } from "../helpers/factories.ts";
import {
  authorizePath,
  type Client,
  exchangeCode,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  refresh,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const APPS = "/dashboard/integrations/applications";

async function shopApp(options: { public?: boolean } = {}) {
  const owner = await createVendor(t.ctx, "Atelier Lua");
  const { application, clientSecret } = await createApplication(t.ctx, owner.id, {
    name: "Lua Fittings",
    redirectUris: [REDIRECT_URI],
    ...options,
  });
  const client: Client = { clientId: application.clientId, clientSecret, application };
  return { owner, client };
}

/** `email` signs in and opens the authorization URL of `client`. */
async function openConsent(client: Client, email: string) {
  const browser = await signedInBrowser(t, email);
  const { verifier, challenge } = pkcePair();
  const page = await browser.get(authorizePath(validParams(client, challenge)));
  return { browser, page, verifier };
}

describe("who may authorize an application", () => {
  it("a new application is private: another shop is sent back with unauthorized_client, no consent page", async () => {
    const { client } = await shopApp();
    const stranger = await createVendor(t.ctx, "Other Shop");
    const { page } = await openConsent(client, stranger.email);
    expect(page.status).toBe(302);
    const back = redirectParams(page);
    expect(back.get("error")).toBe("unauthorized_client");
    expect(back.get("error_description")).toMatch(/private/);
    expect(back.get("state")).toBe("xyz-state");
    expect(back.get("code")).toBeNull();
  });

  it("a consent form posted for a private application by another shop issues no code", async () => {
    const { client } = await shopApp({ public: true });
    const stranger = await createVendor(t.ctx, "Other Shop");
    const { browser, page } = await openConsent(client, stranger.email);
    expect(page.status).toBe(200);
    // The owner makes it private while the stranger's consent page is open.
    await setApplicationPublic(t.ctx, client.application.vendorId, client.application.id, false);
    const res = await browser.submit(page, { decision: "allow" });
    expect(res.status).toBe(303);
    expect(redirectParams(res).get("error")).toBe("unauthorized_client");
    expect(redirectParams(res).get("code")).toBeNull();
  });

  it("the shop that registered it may authorize its private application", async () => {
    const { owner, client } = await shopApp();
    const { browser, page, verifier } = await openConsent(client, owner.email);
    expect(page.status).toBe(200);
    const res = await browser.submit(page, { decision: "allow" });
    const code = redirectParams(res).get("code");
    expect(code).toBeTruthy();
    expect((await exchangeCode(t, client, code as string, verifier)).status).toBe(200);
  });

  it("a public application: any shop sees a consent page naming the publishing shop", async () => {
    const { client } = await shopApp({ public: true });
    const stranger = await createVendor(t.ctx, "Other Shop");
    const { page } = await openConsent(client, stranger.email);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<strong>Lua Fittings</strong> is published by <strong>Atelier Lua</strong>");
    expect(page.text).toContain("You are signed in as <strong>Other Shop</strong>");
  });

  it("made private again: other shops' grants are revoked, the owner's stays", async () => {
    const { owner, client } = await shopApp({ public: true });
    const stranger = await createVendor(t.ctx, "Other Shop");
    const tokensOf = async (email: string) => {
      const { browser, page, verifier } = await openConsent(client, email);
      const code = redirectParams(await browser.submit(page, { decision: "allow" })).get("code") as string;
      return (await exchangeCode(t, client, code, verifier)).body as {
        access_token: string;
        refresh_token: string;
      };
    };
    const theirs = await tokensOf(stranger.email);
    const mine = await tokensOf(owner.email);
    await setApplicationPublic(t.ctx, owner.id, client.application.id, false);
    expect((await t.api.get("/api/vendor/orders", { token: theirs.access_token })).status).toBe(401);
    expect((await refresh(t, client, theirs.refresh_token)).status).toBe(400);
    expect((await t.api.get("/api/vendor/orders", { token: mine.access_token })).status).toBe(200);
  });

  it("another shop cannot change an application's visibility (404)", async () => {
    const { client } = await shopApp();
    const stranger = await createVendor(t.ctx, "Other Shop");
    await expect(setApplicationPublic(t.ctx, stranger.id, client.application.id, true)).rejects.toMatchObject(
      {
        code: "not_found",
      },
    );
  });
});

describe("the dashboard", () => {
  it("registers private by default, public when ticked, and switches with a confirmation", async () => {
    const { browser } = await signedInVendor(t, "Atelier Lua");
    await follow(browser, await postFrom(browser, APPS, APPS, { name: "Mine", redirectUris: REDIRECT_URI }));
    let list = await browser.get(APPS);
    expect(list.text).toContain('data-visibility="private"');
    const id = /data-application-id="([^"]+)"/.exec(list.text)?.[1] as string;
    const made = await follow(browser, await confirmThrough(browser, `${APPS}/${id}/make-public`));
    expect(flashOf(made)?.text).toContain("is now public");
    list = await browser.get(APPS);
    expect(list.text).toContain('data-visibility="public"');
    await follow(
      browser,
      await postFrom(browser, APPS, APPS, { name: "Open", redirectUris: REDIRECT_URI, public: "true" }),
    );
    expect((await browser.get(APPS)).text.match(/data-visibility="public"/g)).toHaveLength(2);
  });
});

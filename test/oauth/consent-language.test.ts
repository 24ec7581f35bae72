// The consent page speaks the signed-in member's language (their own, else the shop's); the
// protocol's answers (the redirect's error codes) stay as RFC 6749 spells them. Each check fails
// with the English text the page had.
import { describe, expect, it } from "vitest";
import { setMemberLanguage, setShopLanguage } from "../../src/modules/vendors/shop-language.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { createMember, createVendor } from "../helpers/factories.ts";
import {
  authorizePath,
  createClient,
  pkcePair,
  redirectParams,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("the consent page in the member's language", () => {
  it("a German shop's owner reads the whole page in German, and Ablehnen still answers access_denied", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx, "Atelier Lumière");
    await setShopLanguage(t.ctx, vendor.id, "de");
    const browser = await signedInBrowser(t, vendor.email);
    const { challenge } = pkcePair();
    const consent = await browser.get(authorizePath(validParams(client, challenge)));
    expect(consent.status).toBe(200);
    const text = decodeEntities(consent.text);
    expect(text).toContain('<html lang="de">');
    expect(text).toContain("<title>Bridal POS erlauben? · ");
    expect(text).toContain("<h1>Darf Bridal POS auf Ihr Konto zugreifen?</h1>");
    expect(text).toContain("<strong>Bridal POS</strong> wird von <strong>App Maker</strong> angeboten.");
    expect(text).toContain(
      "Sie sind als <strong>Atelier Lumière</strong> angemeldet. <strong>Bridal POS</strong> möchte:",
    );
    expect(text).toContain("Ihre Aufträge und deren Statusverlauf lesen");
    expect(text).toContain("(orders:read)");
    expect(text).toContain("Nach Ihrer Entscheidung werden Sie zu https://client.example zurückgeleitet.");
    expect(text).toMatch(/<button[^>]*value="allow">Erlauben<\/button>/);
    expect(text).toMatch(/<button[^>]*value="deny">Ablehnen<\/button>/);
    for (const english of [
      "Allow",
      "Deny",
      "access your account",
      "published by",
      "signed in as",
      "sent back",
    ])
      expect(text).not.toContain(english);

    const denied = await browser.submit(consent, { decision: "deny" });
    expect(denied.status).toBe(303);
    expect(redirectParams(denied).get("error")).toBe("access_denied");
  });

  it("a member's own language wins over the shop's: a French owner of an English shop reads French", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx, "Atelier Rosa");
    await setMemberLanguage(t.ctx, vendor.id, vendor.ownerId, "fr", { allowPseudo: false });
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    const text = decodeEntities(consent.text);
    expect(text).toContain('<html lang="fr">');
    expect(text).toContain("<h1>Autoriser Bridal POS à accéder à votre compte ?</h1>");
    expect(text).toMatch(/<button[^>]*value="deny">Refuser<\/button>/);
  });

  it("a German staff member is told in German that only owners connect applications", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx, "Atelier Lumière");
    await setShopLanguage(t.ctx, vendor.id, "de");
    const staff = await createMember(t.ctx, vendor.id);
    const browser = await signedInBrowser(t, staff.email);
    const res = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    expect(res.status).toBe(403);
    const text = decodeEntities(res.text);
    expect(text).toContain("<h1>Nur für Inhaber</h1>");
    expect(text).toContain("Nur die Inhaber des Geschäfts können Anwendungen damit verbinden.");
    expect(text).not.toContain("Owners only");
    expect(res.location ?? null).toBeNull();
  });
});

// The Team page, the invitation page and two-step sign-in speak their reader's language: an owner
// who reads German gets the Team page, its flashes, refusals and confirmation pages in German; a
// visitor whose browser asks for German gets the invitation page in German; a member who reads
// German sets up and types the second step in German, even before the browser is signed in. The
// authenticator app names the account after the product (PRODUCT_NAME), never "vendor-api".
import { randomUUID } from "node:crypto";
import { generate, generateURI } from "otplib";
import { describe, expect, it } from "vitest";
import { qrSvg } from "../../src/dashboard/two-step.routes.ts";
import { memberInvitations } from "../../src/db/schema/index.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { newId } from "../../src/lib/ids.ts";
import { Browser, decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { csrfOf, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createMember, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const PRODUCT = "Nähstube Desk";
const clock = adjustableClock();
const t = useTestApp({
  now: clock.now,
  config: { productName: PRODUCT, signInRateLimitPerMinute: 1000 },
});
const TEAM = "/dashboard/settings/team";

/** The member signed in on `browser` reads the dashboard in German from now on. */
async function readsGerman(browser: Browser): Promise<void> {
  const account = await browser.get("/dashboard/account");
  const saved = await browser.post("/dashboard/account/language", { _csrf: csrfOf(account), language: "de" });
  expect(saved.status).toBe(303);
}

/** A page as a browser asking for German (Accept-Language) gets it. */
async function inGerman(path: string): Promise<PageResponse> {
  const res = await fetch(t.url + path, { headers: { "accept-language": "de-DE,de;q=0.9" } });
  return { status: res.status, headers: res.headers, text: await res.text(), location: null };
}

const text = (page: PageResponse) => decodeEntities(page.text);

describe("the Team page in German", () => {
  it("shows its table, forms, flashes, refusals and confirmation pages in German", async () => {
    const { vendor, browser } = await signedInVendor(t, "Brautmoden Berg");
    await readsGerman(browser);
    const staff = await createMember(t.ctx, vendor.id, { name: "Lena Naht" });

    const page = await browser.get(TEAM);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de">');
    for (const words of [
      "Mitglied seit",
      "Rolle ändern",
      "Jemanden einladen",
      "Einladung senden",
      "Inhaber",
    ]) {
      expect(text(page)).toContain(words);
    }
    expect(text(page)).not.toContain("Invite someone");

    const email = `greta-${randomUUID()}@example.test`;
    const sent = await follow(
      browser,
      await postFrom(browser, TEAM, `${TEAM}/invitations`, { email, role: "staff" }),
    );
    expect(flashOf(sent)?.text).toBe(`Einladung an ${email} gesendet.`);
    expect(text(sent)).toContain("gültig bis");

    const again = await follow(
      browser,
      await postFrom(browser, TEAM, `${TEAM}/invitations`, { email: staff.email, role: "staff" }),
    );
    expect(flashOf(again)).toEqual({
      kind: "error",
      text: "Diese E-Mail-Adresse gehört bereits zu einem Mitglied dieses Geschäfts.",
    });

    const demoted = await follow(
      browser,
      await postFrom(browser, TEAM, `${TEAM}/${vendor.ownerId}/role`, { role: "staff" }),
    );
    expect(flashOf(demoted)?.text).toBe(
      "Das ist der letzte Inhaber des Geschäfts: Machen Sie zuerst ein anderes Mitglied zum Inhaber.",
    );

    const confirm = await browser.get(`${TEAM}/${staff.id}/remove`);
    expect(confirm.status).toBe(200);
    expect(text(confirm)).toContain("Lena Naht aus dem Geschäft entfernen?");
    expect(text(confirm)).toContain("Mitglied entfernen");
  });
});

describe("the invitation page in German", () => {
  it("greets the invitee in their browser's language, and says so when the link is dead", async () => {
    const { vendor } = await signedInVendor(t, "Atelier Weiß");
    const token = `vin_${randomUUID().replaceAll("-", "")}`;
    await t.ctx.db.insert(memberInvitations).values({
      id: newId(),
      vendorId: vendor.id,
      email: `jana-${randomUUID()}@example.test`,
      role: "staff",
      tokenHash: hashSecret(token),
      invitedBy: vendor.ownerId,
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 86_400_000),
    });
    const page = await inGerman(`/invitation?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de">');
    expect(text(page)).toContain("Atelier Weiß beitreten");
    expect(page.text).toContain("Sie sind als <strong>Mitarbeiter</strong> eingeladen.");
    expect(text(page)).toContain("Dem Geschäft beitreten");

    const dead = await inGerman("/invitation?token=vin_nothing");
    expect(dead.status).toBe(400);
    expect(dead.text).toContain('<html lang="de">');
    expect(text(dead)).toContain("Diese Einladung ist nicht mehr gültig");
  });
});

describe("two-step sign-in in German", () => {
  it("sets up under the product's name and asks for the code in the member's language", async () => {
    const { vendor, browser } = await signedInVendor(t);
    await readsGerman(browser);

    const setup = await browser.get("/dashboard/account/two-step");
    expect(setup.status).toBe(200);
    expect(setup.text).toContain('<html lang="de">');
    expect(text(setup)).toContain("Code aus Ihrer Authenticator-App");
    const secret = decodeEntities(
      /<code class="secret-key">([^<]+)<\/code>/.exec(setup.text)?.[1] ?? "",
    ).replace(/\s+/g, "");
    // The QR code is the otpauth URI naming the product, not the service.
    const uri = generateURI({ issuer: PRODUCT, label: vendor.email, secret });
    const svg = /<div class="qr" style="max-width:14rem">([\s\S]*?)<\/div>/.exec(setup.text)?.[1];
    expect(svg).toBe((await qrSvg(uri)).value);

    const epoch = () => Math.floor(clock.now().getTime() / 1000);
    const wrong = await follow(
      browser,
      await browser.post("/dashboard/account/two-step", { _csrf: csrfOf(setup), code: "000000" }),
    );
    expect(flashOf(wrong)?.text).toBe("Das ist nicht der Code, den der Authenticator anzeigt.");
    const on = await follow(
      browser,
      await browser.post("/dashboard/account/two-step", {
        _csrf: csrfOf(setup),
        code: await generate({ secret, epoch: epoch() }),
      }),
    );
    expect(flashOf(on)?.text).toContain("Die Anmeldung in zwei Schritten ist aktiv");

    clock.advance(31_000);
    try {
      const later = new Browser(t.url);
      const signIn = await later.submit(await later.get("/login"), {
        email: vendor.email,
        password: TEST_PASSWORD,
      });
      expect(signIn.location).toMatch(/^\/login\/two-step/);
      const step = await later.get(signIn.location as string);
      expect(step.status).toBe(200);
      expect(step.text).toContain('<html lang="de">');
      expect(text(step)).toContain("Telefon verloren?");
      expect(text(step)).toContain(">Weiter</button>");
      const ok = await later.submit(step, { code: await generate({ secret, epoch: epoch() }) });
      expect(ok.status).toBe(303);
    } finally {
      clock.setOffset(0);
    }
  });
});

// Integrations in the member's language (issue 46): the overview, API keys, applications,
// connected apps, webhooks with one webhook's page and its delivery log, the sandbox, their
// confirmation pages and their flash messages, read by a member who chose German. Each check
// names German text the English page does not have, so an untranslated page fails here.
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { sendTestEvent } from "../../src/modules/webhooks/webhooks.service.ts";
import type { Browser, PageResponse } from "../helpers/browser.ts";
import { confirmThrough, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const BASE = "/dashboard/integrations";

/** A vendor whose member reads the dashboard in German. */
async function germanMember() {
  const { vendor, browser } = await signedInVendor(t);
  const saved = await postFrom(browser, "/dashboard/account", "/dashboard/account/language", {
    language: "de",
  });
  expect(saved.status).toBe(303);
  return { vendor, browser };
}

async function german(browser: Browser, path: string): Promise<PageResponse> {
  const page = await browser.get(path);
  expect(page.status, path).toBe(200);
  expect(page.text, path).toContain('<html lang="de">');
  return page;
}

describe("Integrations in German", () => {
  it("the overview and the API keys page, their flashes and the revoke question", async () => {
    const { browser } = await germanMember();
    const empty = await german(browser, BASE);
    expect(empty.text).toContain("Verbinden Sie Ihre eigene Software");
    expect(empty.text).toContain("0 aktive Schlüssel");

    const created = await follow(
      browser,
      await postFrom(browser, `${BASE}/api-keys`, `${BASE}/api-keys`, { name: "Kasse", test: "on" }),
    );
    expect(flashOf(created)?.text).toContain("Testschlüssel „Kasse“ erstellt.");
    expect(created.text).toContain("<h2>API-Schlüssel erstellen</h2>");
    expect(created.text).toContain("Ihre Aufträge und deren Statusverlauf lesen");
    expect((await german(browser, BASE)).text).toContain("1 aktiver Schlüssel");

    const revoke = /href="([^"]+\/revoke)"/.exec(created.text)?.[1] ?? "";
    const question = await german(browser, revoke);
    expect(question.text).toContain("API-Schlüssel „Kasse“ widerrufen?");
    const revoked = await follow(browser, await confirmThrough(browser, revoke));
    expect(flashOf(revoked)?.text).toContain("API-Schlüssel widerrufen.");
    expect(revoked.text).toContain('<span class="badge">Widerrufen</span>');
  });

  it("applications and connected apps, with the applications' questions and flashes", async () => {
    const { browser } = await germanMember();
    expect((await german(browser, `${BASE}/applications`)).text).toContain("Noch keine Anwendungen.");
    expect((await german(browser, `${BASE}/connected-apps`)).text).toContain(
      "Keine Anwendung hat Zugriff auf Ihr Konto.",
    );
    const registered = await follow(
      browser,
      await postFrom(browser, `${BASE}/applications`, `${BASE}/applications`, {
        name: "Atelier-App",
        redirectUris: "https://atelier.example/cb",
      }),
    );
    expect(flashOf(registered)?.text).toContain("Anwendung „Atelier-App“ registriert.");
    expect(registered.text).toContain("Nur dieses Geschäft (privat)");
    const makePublic = /href="([^"]+\/make-public)"/.exec(registered.text)?.[1] ?? "";
    expect((await german(browser, makePublic)).text).toContain("„Atelier-App“ öffentlich machen?");
    const done = await follow(browser, await confirmThrough(browser, makePublic));
    expect(flashOf(done)?.text).toContain("„Atelier-App“ ist jetzt öffentlich.");
  });

  it("webhooks: the list, one webhook's page with its delivery log, and the form's refusal", async () => {
    const { vendor, browser } = await germanMember();
    const hooks = `${BASE}/webhooks`;
    expect((await german(browser, hooks)).text).toContain("Noch keine Webhooks.");
    const none = await follow(
      browser,
      await postFrom(browser, hooks, hooks, { url: "https://receiver.example/hook" }),
    );
    expect(flashOf(none)).toMatchObject({
      kind: "error",
      text: expect.stringContaining("mindestens ein Ereignis"),
    });

    const res = await postFrom(browser, hooks, hooks, {
      url: "https://receiver.example/hook",
      events: "order.created",
    });
    const here = res.location ?? "";
    const registered = await follow(browser, res);
    expect(flashOf(registered)?.text).toContain("Webhook registriert.");
    await sendTestEvent(t.ctx, vendor.id, here.split("/").pop() ?? "");
    const detail = await german(browser, here);
    expect(detail.text).toContain("<h2>Zustellprotokoll</h2>");
    expect(detail.text).toContain("Noch nicht versucht.");
    expect(detail.text).toContain("0 Versuche");
    expect(detail.text).toContain("Fehler in Folge: 0");
    expect(detail.text).toContain("Testereignis senden");
    expect((await german(browser, hooks)).text).toContain('data-health="healthy">In Ordnung</span>');
    const disabled = await follow(
      browser,
      await postFrom(browser, here, `${here}/status`, { status: "DISABLED" }),
    );
    expect(flashOf(disabled)?.text).toContain("Webhook deaktiviert.");
    expect((await german(browser, BASE)).text).toContain("1 deaktiviert");
  });

  it("the sandbox, its reset question with every count in German, and the reset's flash", async () => {
    const { vendor, browser } = await germanMember();
    expect((await german(browser, `${BASE}/sandbox`)).text).toContain("Noch keine Testumgebung.");
    const { key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Tests", test: true });
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Test Tania", type: "SUIT" },
      { key },
    );
    expect(order.status).toBe(201);
    const sandbox = await german(browser, `${BASE}/sandbox`);
    expect(sandbox.text).toContain("<strong>Testdaten.</strong>");
    expect(sandbox.text).toContain("Aufträge (1)");
    expect(sandbox.text).toContain('data-status="ORDERED">Bestellt</span>');
    expect(sandbox.text).toContain("<td>Anzug</td>");
    expect((await german(browser, `${BASE}/sandbox?view=appointments`)).text).toContain(
      "Keine Termine in der Testumgebung.",
    );
    const question = await german(browser, `${BASE}/sandbox/reset`);
    expect(question.text).toContain("Daten der Testumgebung zurücksetzen?");
    expect(question.text).toContain("1 Auftrag, 1 Kundin oder Kunde, 0 Termine, 0 Anfragen und");
    expect(question.text).toContain("die 0 Webhook-Endpunkte der Testumgebung bleiben");
    const reset = await follow(browser, await confirmThrough(browser, `${BASE}/sandbox/reset`));
    expect(flashOf(reset)?.text).toContain("Testdaten zurückgesetzt");
  });
});

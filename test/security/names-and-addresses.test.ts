// Names a person or a mail shows, and the addresses mail goes to (the audit's low findings):
// - a shop's, member's, customer's or application's name with a control character (CR/LF
//   included) is refused, validation_failed naming the field, on the API and the dashboard forms;
// - a customer's name given to a calendar invitation adds no parameter to it (a customer named
//   `Eve";RSVP=TRUE:mailto:…` did: the ics library escapes a quote with a backslash, which
//   RFC 5545 does not know);
// - member addresses are checked like inquiry addresses (`x<attacker@evil.example>` was invited,
//   and the invitation mailed to the attacker).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { acceptInvitation } from "../../src/modules/members/invitations.service.ts";
import { createVendor as createVendorByService } from "../../src/modules/use-cases/vendor-accounts.service.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser } from "../helpers/browser.ts";
import { flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true, config: { signInRateLimitPerMinute: 1000 } });
const mail = useMailSender(() => t);

/** Names with a control character inside (a trim would not remove it). */
const BAD_NAMES = ["Eve\r\nBcc: victim@example.test", "Eve\nSmith", "Bell\u0007a", "Ro\u0085sa", "A\u2028B"];

const fieldsOf = (body: { code?: string; errors?: Array<{ field: string }> }) => ({
  code: body.code,
  fields: (body.errors ?? []).map((e) => e.field),
});

describe("names carry no control characters", () => {
  it("the API refuses them in a customer's name (create, update), an order's customerName and an inquiry's name", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const customer = await t.api.post("/api/vendor/customers", { name: "Maria" }, { key });
    expect(customer.status).toBe(201);
    for (const name of BAD_NAMES) {
      const created = await t.api.post("/api/vendor/customers", { name }, { key });
      expect([created.status, fieldsOf(created.body)]).toEqual([
        400,
        { code: "validation_failed", fields: ["name"] },
      ]);
      const updated = await t.api.patch(`/api/vendor/customers/${customer.body.id}`, { name }, { key });
      expect([updated.status, fieldsOf(updated.body)]).toEqual([
        400,
        { code: "validation_failed", fields: ["name"] },
      ]);
      const order = await t.api.post(
        "/api/vendor/orders",
        { customerName: name, customerEmail: "bride@example.test", type: "BRIDAL_DRESS" },
        { key },
      );
      expect([order.status, fieldsOf(order.body)]).toEqual([
        400,
        { code: "validation_failed", fields: ["customerName"] },
      ]);
      const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
        name,
        email: "bride@example.test",
        message: "Hello",
      });
      expect([inquiry.status, fieldsOf(inquiry.body)]).toEqual([
        400,
        { code: "validation_failed", fields: ["name"] },
      ]);
    }
    const rows = await queryRows<{ name: string }>(
      t.database.db,
      sql`select name from customers where vendor_id = ${vendor.id}`,
    );
    expect(rows.map((r) => r.name)).toEqual(["Maria"]);
  });

  it("the dashboard refuses them in the shop's, a member's, a new customer's and an application's name", async () => {
    const { vendor, browser } = await signedInVendor(t, "Bella");
    const name = BAD_NAMES[0] as string;
    const refusedFlash = async (res: Awaited<ReturnType<Browser["post"]>>) => {
      expect(res.status).toBe(303);
      return flashOf(await follow(browser, res));
    };

    const settings = await postFrom(browser, "/dashboard/settings", "/dashboard/settings", {
      name,
      contactEmail: "",
      timeZone: "Europe/Lisbon",
      website: "",
    });
    expect(await refusedFlash(settings)).toMatchObject({
      kind: "error",
      text: expect.stringMatching(/name/),
    });

    const rename = await postFrom(browser, "/dashboard/account", "/dashboard/account/name", { name });
    expect(await refusedFlash(rename)).toMatchObject({ kind: "error", text: expect.stringMatching(/name/) });

    const app = await postFrom(
      browser,
      "/dashboard/integrations/applications",
      "/dashboard/integrations/applications",
      { name, redirectUris: "https://app.example/callback", public: "false" },
    );
    expect(await refusedFlash(app)).toMatchObject({ kind: "error", text: expect.stringMatching(/name/) });

    const customer = await postFrom(browser, "/dashboard/customers/new", "/dashboard/customers", { name });
    expect(customer.status).toBe(400);
    expect(customer.text).toMatch(/id="name-error">[^<]*control characters/);

    const names = await queryRows<{ shop: string; member: string; apps: number; customers: number }>(
      t.database.db,
      sql`select v.name as shop, m.name as member,
            (select count(*) from applications a where a.vendor_id = v.id)::int as apps,
            (select count(*) from customers c where c.vendor_id = v.id)::int as customers
          from vendors v join members m on m.vendor_id = v.id where v.id = ${vendor.id}`,
    );
    expect(names).toEqual([{ shop: "Bella", member: "", apps: 0, customers: 0 }]);
  });

  it("sign-up, an invitation's acceptance and the operator's vendor create refuse them, naming the field", async () => {
    const browser = new Browser(t.url);
    const signup = await browser.submit(await browser.get("/signup"), {
      name: BAD_NAMES[1] as string,
      email: `new-${Date.now()}@example.test`,
    });
    expect(signup.status).toBe(400);
    await expect(
      createVendorByService(t.ctx, {
        name: BAD_NAMES[0] as string,
        email: "x@example.test",
        password: "a long passphrase",
      }),
    ).rejects.toMatchObject({ code: "validation_failed", extra: { errors: [{ field: "name" }] } });
    await expect(
      acceptInvitation(t.ctx, "vmi_nonsense", {
        name: BAD_NAMES[2] as string,
        password: "a long passphrase",
      }),
    ).rejects.toMatchObject({ code: "validation_failed", extra: { errors: [{ field: "name" }] } });
  });
});

describe("a calendar invitation", () => {
  it("keeps a customer's name with quotes, semicolons and colons inside its CN parameter", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, 'Shop "Best"; ROLE=CHAIR');
    await updateShopSettings(t.ctx, vendor.id, {
      name: 'Shop "Best"; ROLE=CHAIR',
      contactEmail: "hello@shop.example",
      timeZone: "Europe/Lisbon",
      customerMail: true,
    });
    const email = `eve-${Date.now()}@example.test`;
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: 'Eve";RSVP=TRUE:mailto:eve@evil.example', email },
      { key },
    );
    expect(customer.status).toBe(201);
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2031-05-01T09:30:00Z", duration: 45 },
      { key },
    );
    expect(appointment.status).toBe(201);
    const confirm = await t.api.patch(
      `/api/vendor/appointments/${appointment.body.id}`,
      { status: "CONFIRMED" },
      { key },
    );
    expect(confirm.status).toBe(200);
    const [received] = await mail.sink.waitFor(email);
    const ics = (
      received?.parsed.attachments
        .find((a) => a.contentType.startsWith("text/calendar"))
        ?.content.toString("utf8") ?? ""
    ).replace(/\r\n[ \t]/g, "");
    const line = (name: string) =>
      ics.split("\r\n").filter((l) => l.startsWith(`${name};`) || l.startsWith(`${name}:`));
    // Each property's parameters as a calendar reads them (RFC 5545 3.1: a quoted value holds any
    // character but DQUOTE): exactly the ones written, the name whole inside CN, one address.
    const params = (l: string) =>
      [...l.slice(0, l.search(/:(?=(?:[^"]*"[^"]*")*[^"]*$)/)).matchAll(/;([A-Z-]+)=("[^"]*"|[^;:]*)/g)].map(
        (m) => m[1],
      );
    const [attendee] = line("ATTENDEE");
    expect(line("ATTENDEE")).toHaveLength(1);
    expect(params(attendee as string)).toEqual(["RSVP", "ROLE", "CN"]);
    expect(attendee).toContain(`CN="Eve^';RSVP=TRUE:mailto:eve@evil.example":mailto:${email}`);
    const [organizer] = line("ORGANIZER");
    expect(params(organizer as string)).toEqual(["CN"]);
    // The organizer's address is the shop's only when verified (the mail budget's Reply-To rule);
    // hello@shop.example was typed into Settings, so it is the From address here.
    expect(organizer).toContain(`CN="Shop ^'Best^'; ROLE=CHAIR":MAILTO:`);
    expect(organizer).not.toContain("hello@shop.example");
  });
});

describe("member addresses are checked like inquiry addresses", () => {
  it("an invitation to an address with a display name or brackets is refused, and nothing is mailed", async () => {
    const { vendor, browser } = await signedInVendor(t);
    for (const email of [
      "x<attacker@evil.example>",
      '"Boss" <attacker@evil.example>',
      "a@b.example;c@evil.example",
    ]) {
      const res = await postFrom(
        browser,
        "/dashboard/settings/team",
        "/dashboard/settings/team/invitations",
        {
          email,
          role: "staff",
        },
      );
      expect(res.status).toBe(303);
      expect(flashOf(await follow(browser, res))).toMatchObject({
        kind: "error",
        text: expect.stringMatching(/e-mail/),
      });
    }
    // The same addresses are refused by the inquiry form's check.
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Eve",
      email: "x<attacker@evil.example>",
      message: "Hi",
    });
    expect(fieldsOf(inquiry.body)).toEqual({ code: "validation_failed", fields: ["email"] });
    const invited = await queryRows(
      t.database.db,
      sql`select 1 from mails where vendor_id = ${vendor.id} and to_address like '%evil.example%'`,
    );
    expect(invited).toHaveLength(0);
    // Sign-up and the shop's contact address too.
    const visitor = new Browser(t.url);
    const refused = await visitor.submit(await visitor.get("/signup"), {
      name: "Eve",
      email: "x<attacker@evil.example>",
    });
    expect(refused.status).toBe(400);
    await expect(
      updateShopSettings(t.ctx, vendor.id, {
        name: "Shop",
        contactEmail: "a@b.example;RSVP=TRUE",
        timeZone: "Europe/Lisbon",
      }),
    ).rejects.toMatchObject({ code: "validation_failed", extra: { errors: [{ field: "contactEmail" }] } });
  });
});

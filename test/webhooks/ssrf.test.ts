// The SSRF guard (CONTRACT 7), with a stub resolver: no traffic ever leaves for a non-loopback
// address. Private URLs are refused at registration, and again at connect time on delivery.
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { assertWebhookUrl, isPublicAddress } from "../../src/webhook-delivery/url-guard.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// 93.184.216.34 and 2606:4700::1111 are public; they are only ever returned by the stub, and
// never connected to: every URL below that resolves to them is registered, not delivered to.
const dnsTable: Record<string, string[]> = {
  "public.test": ["93.184.216.34"],
  "public6.test": ["2606:4700::1111"],
  localhost: ["127.0.0.1", "::1"],
  "internal.test": ["10.0.0.5"],
  "metadata.test": ["169.254.169.254"],
  "mixed.test": ["93.184.216.34", "192.168.1.10"],
  "ula.test": ["fd00::1"],
  "rebind.test": ["93.184.216.34"],
};
const stubResolver = async (host: string): Promise<LookupAddress[]> => {
  const found = dnsTable[host.toLowerCase()];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "198.18.0.1",
    "192.0.2.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "2001:db8::1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::1",
    // IPv4-compatible (deprecated ::/96) literals carry an IPv4 address too; only 2000::/3 is global.
    "::127.0.0.1",
    "::10.0.0.1",
    "::169.254.169.254",
    "::8.8.8.8",
    "::7f00:1",
    "::ffff:8.8.8.8",
    "100::1",
    "3fff::1",
    "4000::1",
    "not-an-ip",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700::1111", "2a00:1450:4001::200e"])("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("assertWebhookUrl", () => {
  const policy = { allowPrivate: false, httpsOnly: false, resolver: stubResolver };
  it("in production mode refuses http, even to a public host", async () => {
    await expect(assertWebhookUrl("http://public.test/x", { ...policy, httpsOnly: true })).rejects.toThrow(
      /https/,
    );
    await expect(
      assertWebhookUrl("https://public.test/x", { ...policy, httpsOnly: true }),
    ).resolves.toBeInstanceOf(URL);
  });
});

describe("registration and delivery with private URLs refused", () => {
  let t: TestApp;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp({
      ownDatabase: true,
      env: {
        WEBHOOK_ALLOW_PRIVATE_URLS: "false",
        WEBHOOK_RETRY_DELAYS_MS: "50,100,150",
        WEBHOOK_TIMEOUT_MS: "500",
      },
      resolver: stubResolver,
    });
    dispatcher = await startDispatcher({ config: t.config, database: t.database, resolver: stubResolver });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher.stop(1_000);
    await receiver.close();
    await t.close();
  });

  it.each([
    "http://127.0.0.1/x",
    "http://2130706433/x",
    "http://0x7f.0.0.1/x",
    "http://0177.0.0.1/x",
    "http://127.1/x",
    "http://[::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://[0:0:0:0:0:ffff:7f00:1]/x",
    "http://0.0.0.0/x",
    "http://localhost/x",
    "http://LOCALHOST./x",
    "http://internal.test/x",
    "http://metadata.test/latest/meta-data",
    "http://169.254.169.254/latest/meta-data",
    "http://mixed.test/x",
    "http://ula.test/x",
    "http://[fe80::1]/x",
    "http://[::127.0.0.1]/x",
    "http://[::10.0.0.1]/x",
    "http://[::169.254.169.254]/x",
    "http://[::ffff:127.0.0.1]:8080/x",
    "http://unknown-host.test/x",
  ])("refuses %s at registration", async (url) => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post("/api/vendor/webhooks", { url, events: ["order.created"] }, { key });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("url");
  });

  it("accepts a host that resolves only to public addresses, and refuses changing it to a private one", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const url of ["http://public.test/x", "https://public6.test/x", "http://93.184.216.34/x"]) {
      const res = await t.api.post("/api/vendor/webhooks", { url, events: ["order.created"] }, { key });
      expect(res.status).toBe(201);
    }
    const list = await t.api.get("/api/vendor/webhooks", { key });
    const res = await t.api.patch(
      `/api/vendor/webhooks/${list.body.webhooks[0].id}`,
      { url: "http://127.1/" },
      { key },
    );
    expect(res.status).toBe(400);
  });

  it("checks the resolved address again at connect time: a host rebound to loopback gets nothing", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const port = new URL(receiver.url).port;
    const created = await t.api.post(
      "/api/vendor/webhooks",
      { url: `http://rebind.test:${port}/hook`, events: ["order.created"] },
      { key },
    );
    expect(created.status).toBe(201);
    // DNS now answers with the loopback address where the receiver listens.
    dnsTable["rebind.test"] = ["127.0.0.1"];
    await t.api.post("/api/vendor/orders", { customerName: "Eve", type: "SUIT" }, { key });
    const delivery = await eventually(async () => {
      const res = await t.api.get(`/api/vendor/webhooks/${created.body.id}/deliveries`, { key });
      const [d] = res.body.deliveries;
      return d?.status === "FAILED" && d;
    });
    expect(delivery.attempts).toHaveLength(4);
    expect(delivery.attempts[0].error).toMatch(/refused to connect to non-public address/);
    await deliveriesSettled(t, vendor.id);
    expect(receiver.requests).toHaveLength(0);
  });
});

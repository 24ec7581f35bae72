// Settings whose effect is easiest to see on the parsed configuration itself.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";

describe("the webhook User-Agent", () => {
  it("names PUBLIC_URL when it is set", () => {
    expect(loadConfig({ PUBLIC_URL: "https://api.example.com/" }).webhookUserAgent).toBe(
      "vendor-api-webhooks/1.0 (+https://api.example.com)",
    );
  });

  it("names no URL without PUBLIC_URL, whatever PORT is (a worker does not serve the API's port)", () => {
    expect(loadConfig({}).webhookUserAgent).toBe("vendor-api-webhooks/1.0");
    expect(loadConfig({ PORT: "8080" }).webhookUserAgent).toBe("vendor-api-webhooks/1.0");
  });
});

// Settings whose effect is easiest to see on the parsed configuration itself, and the declaration
// the configuration and its documents (README's table, .env.example) are made from.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configDocuments, root } from "../../scripts/config-docs.ts";
import { Refusal } from "../../src/config/rules.ts";
import { type Variable, variables } from "../../src/config/variables.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";

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

describe("the declaration of the environment (src/config/variables.ts)", () => {
  const declared = Object.entries(variables) as [string, Variable][];

  it("gives each variable a default that passes its rule, or words for a derived one, never both", () => {
    for (const [name, v] of declared) {
      expect.soft(v.default !== undefined && v.derived !== undefined, name).toBe(false);
      for (const text of [v.default, v.example]) {
        if (text !== undefined)
          expect.soft(v.rule.parse(text), `${name}=${text}`).not.toBeInstanceOf(Refusal);
      }
    }
  });

  it("is the only way the configuration reads the environment", () => {
    const dir = fileURLToPath(new URL("../../src/", import.meta.url));
    for (const file of ["config.ts", ...fs.readdirSync(`${dir}config`).map((f) => `config/${f}`)]) {
      expect.soft(fs.readFileSync(dir + file, "utf8"), file).not.toMatch(/\benv\s*(\.\s*[A-Z]|\[\s*["'`])/);
    }
  });

  it("reports every invalid variable at once, in the declaration's order, quoting no secret", () => {
    const env = {
      NODE_ENV: "production",
      PORT: "http",
      SIGNUP_ENABLED: "yes",
      SMTP_URL: "http://user:hunter2@mail.example",
      METRICS_TOKEN: "hunter2",
    };
    const error = (() => {
      try {
        loadConfig(env);
      } catch (err) {
        return err as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.problems).toEqual([
      'PORT must be an integer between 0 and 65535 (got "http")',
      "METRICS_TOKEN must be at least 16 characters",
      'SIGNUP_ENABLED must be true or false (got "yes")',
      "SMTP_URL must be a smtp: or smtps: URL",
      // The rules between variables come last.
      "SESSION_SECRET must be set (at least 32 characters) when NODE_ENV=production",
    ]);
    expect(error?.message).not.toContain("hunter2");
  });

  // `npm run config:docs` writes them; this fails until it has run after a change to a variable.
  it("generates the README's table and .env.example as they are committed", () => {
    for (const { file, text } of configDocuments()) {
      expect(fs.readFileSync(file, "utf8"), `${path.relative(root, file)}: run npm run config:docs`).toBe(
        text,
      );
    }
  });
});

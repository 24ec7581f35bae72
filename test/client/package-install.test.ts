// Issue 28 item 6: the client is published-ready. Built (ESM + .d.ts), packed, installed into a
// scratch project from the tarball with npm --offline (no registry), and run by plain `node`
// (no TypeScript loader) against a real server: the import, a call, webhook verification.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const root = join(import.meta.dirname, "../..");
const pkg = join(root, "clients/typescript");
const scratch = mkdtempSync(join(tmpdir(), "vendor-api-client-install-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(cmd, args, { cwd, stdio: "pipe", encoding: "utf8", env: { ...process.env, ...env } });

describe("@vendor-api/client as a package", () => {
  it("is not private and exports built ESM with declarations", () => {
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    expect(manifest.private).toBeUndefined();
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(manifest.files).toContain("README.md");
  });

  it("builds, packs, installs offline into a scratch project and runs with plain node", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Bella Bridal");
    run(process.execPath, ["build.mjs"], pkg);
    const packed = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], pkg);
    const tarball = join(scratch, JSON.parse(packed)[0].filename);
    const files = JSON.parse(packed)[0]
      .files.map((f: { path: string }) => f.path)
      .sort();
    expect(files).toEqual([
      "README.md",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/schema.d.ts",
      "package.json",
    ]);
    const app = join(scratch, "app");
    run("mkdir", ["-p", app], scratch);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "pos", private: true, type: "module" }));
    run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], app, {
      npm_config_cache: join(scratch, "npm-cache"),
    });
    writeFileSync(
      join(app, "main.js"),
      `import { VendorApiClient, verifyWebhook, ApiError } from "@vendor-api/client";
import { createHmac } from "node:crypto";
const client = new VendorApiClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY });
const profile = await client.profile.get();
const order = await client.orders.create({ customerName: "Maria Silva", type: "BRIDAL_DRESS", size: "38" });
const missing = await client.orders.get("nope").catch((e) => e);
const body = JSON.stringify({ id: "evt_1", event: "order.created", data: order, timestamp: "t" });
const ts = String(Math.floor(Date.now() / 1000));
const sig = (s) => "v1," + createHmac("sha256", s).update("evt_1." + ts + ".").update(body).digest("base64");
const event = verifyWebhook("whsk_new", body, { "webhook-id": "evt_1", "webhook-timestamp": ts, "webhook-signature": sig("whsk_new") + " " + sig("whsk_old") });
console.log(JSON.stringify({ shop: profile.name, status: order.status, missing: missing instanceof ApiError ? missing.code : null, verified: event.data.id === order.id }));
`,
    );
    // Asynchronously: the server answering it runs in this process.
    const { stdout: out } = await promisify(execFile)(process.execPath, ["main.js"], {
      cwd: app,
      env: { ...process.env, BASE_URL: t.url, KEY: key },
    });
    expect(JSON.parse(out)).toEqual({
      shop: "Bella Bridal",
      status: "ORDERED",
      missing: "not_found",
      verified: true,
    });
  }, 180_000);
});

// Issue 28 item 6, issue 45 item 3: the client is published-ready. Built (ESM + .d.ts), packed,
// installed into an empty project from the tarball with npm --offline (no registry), run by plain
// `node` (no TypeScript loader) against a real server (the import, calls, If-Match and ETag,
// webhook verification), and compiled by TypeScript as a strict NodeNext project would.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CHILD_BUILD_DIR } from "../helpers/child-build.ts";
import { clientRelease } from "../helpers/client-release.ts";
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
    expect(manifest.types).toBe("./dist/index.d.ts");
    // A scoped package is private on the registry unless published public.
    expect(manifest.publishConfig).toEqual({ access: "public" });
  });

  it("builds, packs, installs offline into a scratch project and runs with plain node", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Bella Bridal");
    // The release step (npm run release:client, run once for the test run by its global setup):
    // the tarball and its SHA-256 a release carries.
    const released = await clientRelease(CHILD_BUILD_DIR);
    const tarball = released.tarball;
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    expect(tarball).toBe(join(released.dir, `vendor-api-client-${manifest.version}.tgz`));
    const sum = createHash("sha256").update(readFileSync(tarball)).digest("hex");
    expect(readFileSync(`${tarball}.sha256`, "utf8")).toBe(
      `${sum}  vendor-api-client-${manifest.version}.tgz\n`,
    );
    const files = released.files;
    expect(files).toEqual([
      "README.md",
      "dist/cli.d.ts",
      "dist/cli.js",
      "dist/event-samples.d.ts",
      "dist/event-samples.js",
      "dist/forwarding.d.ts",
      "dist/forwarding.js",
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
      `import { VendorApiClient, verifyWebhook, ApiError, etagOf } from "@vendor-api/client";
import { createHmac, randomBytes } from "node:crypto";
const client = new VendorApiClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY });
const profile = await client.profile.get();
const order = await client.orders.create({ customerName: "Maria Silva", type: "BRIDAL_DRESS", size: "38" });
const missing = await client.orders.get("nope").catch((e) => e);
const etag = etagOf(order);
await client.orders.update(order.id, { size: "40" }, { ifMatch: etag });
const stale = await client.orders.update(order.id, { size: "42" }, { ifMatch: etag }).catch((e) => e);
const body = JSON.stringify({ id: "evt_1", event: "order.created", data: order, timestamp: "t" });
const ts = String(Math.floor(Date.now() / 1000));
const key = (s) => (s.startsWith("whsec_") ? Buffer.from(s.slice(6), "base64") : Buffer.from(s));
const sig = (s) => "v1," + createHmac("sha256", key(s)).update("evt_1." + ts + ".").update(body).digest("base64");
const fresh = "whsec_" + randomBytes(32).toString("base64");
const headers = { "webhook-id": "evt_1", "webhook-timestamp": ts, "webhook-signature": sig(fresh) + " " + sig("whsk_old") };
const event = verifyWebhook(fresh, body, headers);
const old = verifyWebhook("whsk_old", body, headers);
console.log(JSON.stringify({ shop: profile.name, status: order.status, missing: missing instanceof ApiError ? missing.code : null, etag: typeof etag, stale: stale instanceof ApiError ? stale.status : null, verified: event.data.id === order.id && old.id === "evt_1" }));
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
      etag: "string",
      stale: 412,
      verified: true,
    });

    // TypeScript, strict, NodeNext, against the installed package's declarations only (the
    // compiler and Node's types are this repository's: nothing else is fetched).
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(root, "node_modules/@types")],
        },
        include: ["main.ts"],
      }),
    );
    writeFileSync(
      join(app, "main.ts"),
      `import { ApiError, etagOf, VendorApiClient, verifyWebhook, type Order } from "@vendor-api/client";
const client = new VendorApiClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "vk_x" });
export async function run(rawBody: string, headers: Record<string, string>): Promise<string> {
  const order: Order = await client.orders.create({ customerName: "Maria Silva", type: "BRIDAL_DRESS" });
  const etag: string | undefined = etagOf(order);
  await client.orders.update(order.id, { size: "40" }, etag === undefined ? {} : { ifMatch: etag });
  // @ts-expect-error: not an order type; the declarations are really read.
  await client.orders.create({ customerName: "Maria Silva", type: "SPACESHIP" });
  const event = verifyWebhook(["whsec_new", "whsk_old"], rawBody, headers);
  if (event.event === "order.status_changed") return event.data.status;
  try {
    await client.orders.get(order.id);
  } catch (e) {
    if (e instanceof ApiError) return e.code;
  }
  return order.status;
}
`,
    );
    run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], app);
    // The same compile fails on a type error: the check is real.
    writeFileSync(
      join(app, "main.ts"),
      `import { VendorApiClient } from "@vendor-api/client";\nconst n: number = new VendorApiClient({ baseUrl: "x" });\nexport { n };\n`,
    );
    const refused = (() => {
      try {
        run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], app);
        return "compiled";
      } catch (e) {
        return String((e as { stdout?: string }).stdout);
      }
    })();
    expect(refused).toMatch(/main\.ts\(2,7\): error TS2322/);
  }, 300_000);
});

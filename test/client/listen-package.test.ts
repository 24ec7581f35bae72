// Issue 45 item 4: `vendor-api-listen`, the client package's own `listen`, as an integrator runs
// it: packed, installed from the tarball into an empty project, started from its bin with the key
// in VENDOR_API_KEY, forwarding a real server's events to a real receiver that verifies them with
// the `standardwebhooks` library. Two runs sign with the same secret, kept per machine and account
// in the config directory (0600); `trigger` sends a signed sample of every event type.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import ajvFormats, { type FormatsPlugin } from "ajv-formats";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventSamples } from "../../clients/typescript/src/event-samples.ts";
import { eventSamplesSource } from "../../scripts/client-event-samples.ts";
import { allEventTypes, eventCatalog } from "../../src/modules/events/catalog.ts";
import { CHILD_BUILD_DIR } from "../helpers/child-build.ts";
import { clientRelease } from "../helpers/client-release.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { type ReceivedRequest, startReceiver } from "../helpers/webhook-receiver.ts";

const t = useTestApp();
const root = path.join(import.meta.dirname, "../..");
const pkg = path.join(root, "clients/typescript");
const scratch = tempDir("listen-package");
const app = path.join(scratch, "app");
const bin = path.join(app, "node_modules/.bin/vendor-api-listen");
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  fs.rmSync(scratch, { recursive: true, force: true });
});

beforeAll(async () => {
  // The run's release of the client package (test/helpers/client-release.ts): built and packed once.
  const { tarball } = await clientRelease(CHILD_BUILD_DIR);
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "till", private: true }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
    cwd: app,
    stdio: "pipe",
    env: { ...process.env, npm_config_cache: path.join(scratch, "npm-cache") },
  });
}, 180_000);

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** The installed bin as a user runs it: its own process, the key and config dir from `env`. */
function runBin(args: string[], env: Record<string, string>): Run {
  const child = spawn(bin, args, {
    cwd: app,
    env: { PATH: process.env.PATH ?? "", HOME: scratch, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout?.on("data", (c: Buffer) => (out.stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    exited,
    waitFor: (stream, pattern) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${pattern} in ${stream}: ${out.stdout}\n${out.stderr}`)),
          20_000,
        );
        const check = () => {
          const m = out[stream].match(pattern);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        child[stream]?.on("data", check);
        void exited.then(() => {
          check();
          clearTimeout(timer);
          reject(new Error(`exited before ${pattern}: ${out.stdout}\n${out.stderr}`));
        });
        check();
      }),
  };
}

const verified = (secret: string, req: ReceivedRequest) =>
  new Webhook(secret).verify(req.rawBody.toString("utf8"), req.headers as Record<string, string>) as {
    id: string;
    event: string;
    data: Record<string, unknown>;
  };

describe("vendor-api-listen from its own package", () => {
  it("forwards events signed with one secret across two runs, the key from VENDOR_API_KEY", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Listen Bridal");
    const receiver = await startReceiver();
    const config = path.join(scratch, "config-a");
    const env = { VENDOR_API_KEY: key, XDG_CONFIG_HOME: config };
    const args = ["--api-url", t.url, "--forward-to", receiver.url, "--events", "order.created"];
    try {
      const secrets: string[] = [];
      for (const round of [1, 2]) {
        const run = runBin(args, env);
        const [, secret] = await run.waitFor("stdout", /signing secret (\S+)/);
        secrets.push(String(secret));
        await run.waitFor("stderr", /connected to /);
        const order = await t.api.post(
          "/api/vendor/orders",
          { customerName: `Maria ${round}`, type: "BRIDAL_DRESS" },
          { key },
        );
        const requests = await receiver.waitFor(round);
        const event = verified(String(secrets[0]), requests[round - 1] as ReceivedRequest);
        expect(event).toMatchObject({ event: "order.created", data: { id: order.body.id } });
        await run.waitFor("stdout", new RegExp(`order\\.created ${event.id}  -> POST .* \\[200\\]`));
        run.child.kill("SIGTERM");
        expect(await run.exited).toBe(0);
      }
      expect(secrets[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(secrets[1]).toBe(secrets[0]);

      const printed = runBin(["--api-url", t.url, "--print-secret"], env);
      expect(await printed.exited).toBe(0);
      expect(printed.stdout()).toBe(`${secrets[0]}\n`);
      const dir = path.join(config, "vendor-api");
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, "listen-secrets.json")).mode & 0o777).toBe(0o600);

      // Another account on the same machine has a secret of its own; no key at all is a usage error.
      const other = await createVendorWithKey(t.ctx, "Other Bridal");
      const theirs = runBin(["--api-url", t.url, "--print-secret"], { ...env, VENDOR_API_KEY: other.key });
      expect(await theirs.exited).toBe(0);
      expect(theirs.stdout().trim()).toMatch(/^whsec_/);
      expect(theirs.stdout().trim()).not.toBe(secrets[0]);
      const keyless = runBin(["--api-url", t.url, "--print-secret"], { XDG_CONFIG_HOME: config });
      expect(await keyless.exited).toBe(2);
      expect(keyless.stderr()).toMatch(/no API key: set VENDOR_API_KEY/);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("trigger sends a signed sample of every event type to the forward URL", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Trigger Bridal");
    const receiver = await startReceiver(() => ({ status: 204 }));
    const env = { VENDOR_API_KEY: key, XDG_CONFIG_HOME: path.join(scratch, "config-b") };
    try {
      const secretRun = runBin(["--api-url", t.url, "--print-secret"], env);
      expect(await secretRun.exited).toBe(0);
      const secret = secretRun.stdout().trim();
      for (const [i, type] of allEventTypes.entries()) {
        const run = runBin(["trigger", type, "--api-url", t.url, "--forward-to", receiver.url], env);
        expect(await run.exited, run.stderr()).toBe(0);
        expect(run.stdout()).toMatch(
          new RegExp(`${type.replace(".", "\\.")} evt_\\w+  -> POST .* \\[204\\]`),
        );
        const requests = await receiver.waitFor(i + 1);
        const req = requests[i] as ReceivedRequest;
        const event = verified(secret, req);
        expect(event.event).toBe(type);
        expect(event.data).toEqual(eventSamples[type]);
        expect(req.headers["x-service-event"]).toBe(type);
      }
      const unknown = runBin(
        ["trigger", "order.shipped", "--api-url", t.url, "--forward-to", receiver.url],
        env,
      );
      expect(await unknown.exited).toBe(2);
      expect(unknown.stderr()).toMatch(/order\.shipped is no event/);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("has a sample for every event of the catalog, valid by its schema, generated from openapi.json", () => {
    expect(Object.keys(eventSamples).sort()).toEqual([...allEventTypes].sort());
    const ajv = new Ajv({ strict: false, allErrors: true });
    (
      (ajvFormats as unknown as { default?: FormatsPlugin }).default ??
      (ajvFormats as unknown as FormatsPlugin)
    )(ajv);
    for (const type of allEventTypes) {
      const validate = ajv.compile(eventCatalog[type].payload);
      expect(validate(eventSamples[type]) ? [] : validate.errors, type).toEqual([]);
    }
    const document = JSON.parse(fs.readFileSync(path.join(pkg, "openapi.json"), "utf8"));
    // The committed file (formatted by Biome) holds the generator's values.
    const generated = eventSamplesSource(document);
    expect(eventSamples).toEqual(
      JSON.parse(generated.slice(generated.indexOf("{"), generated.lastIndexOf("}") + 1)),
    );
  });
});

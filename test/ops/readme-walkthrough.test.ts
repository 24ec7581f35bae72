// The code samples of the README and the guides, run as a reader would against
// one fresh server that is never stopped: the README's walk-through first (its shell blocks, with
// bash), then its other runnable samples, then every guide in the order a newcomer reads them,
// starting with the quick start, which defines every variable the others use ($BASE_URL, $KEY,
// $ORDER_ID). Each `# …` line under a command is the sample answer the document shows, and the
// `// …` lines ending a TypeScript block what it prints: the real output must match, `…` standing
// for anything and each sample id for one real id (see test/helpers/doc-samples.ts). Every block
// of every document (and of the client package's README) is run here or listed in NOT_RUN with the
// reason.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VendorApiClient } from "../../clients/typescript/src/index.ts";
import { Browser } from "../helpers/browser.ts";
import {
  type CodeBlock,
  codeBlocks,
  matchSample,
  runTsSample,
  ShellSession,
  shellSteps,
} from "../helpers/doc-samples.ts";
import { cameraJpeg } from "../helpers/photos.ts";
import { freePort } from "../helpers/ports.ts";
import {
  repoRoot,
  runCliJson,
  type ServerProcess,
  startServer,
  waitForHealth,
} from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

/** The address every document uses for the API: the README's, and $BASE_URL in the guides. */
const DOCUMENTED_URL = "http://127.0.0.1:3000";

const GUIDES = [
  "quick-start",
  "authentication",
  "idempotency",
  "pagination-and-sync",
  "webhooks",
  "event-stream",
  "errors",
  "rate-limits",
  "versioning",
].map((name) => `docs/guides/${name}.md`);

/** The client package's README: its samples run too, for a shop of their own. */
const CLIENT_README = "clients/typescript/README.md";

/** Blocks that are not run, each with why; a block that is neither run nor listed fails the test. */
const NOT_RUN: { file: string; starts: string; why: string }[] = [
  {
    file: "README.md",
    starts: "npm ci && npm start",
    why: "installs and starts the server: this test starts it (node main)",
  },
  { file: "README.md", starts: "npm test", why: "the test suite itself" },
  { file: "README.md", starts: "FUZZ_RUNS=", why: "the fuzzer, run by test/fuzz" },
  {
    file: "docs/operating.md",
    starts: "DATABASE_URL=postgres://vendor_api:…@pgbouncer",
    why: "needs PgBouncer; .ci/run runs that set-up",
  },
  {
    file: CLIENT_README,
    starts: "npm install ./vendor-api-client-",
    why: "a release's tarball: test/client/package-install.test.ts packs the package and installs it into an empty project",
  },
  {
    file: CLIENT_README,
    starts: "const stop = new AbortController();",
    why: "follows the stream until stopped: test/client/resilience.test.ts runs events.stream() across a dropped connection",
  },
];

/** json and text blocks are data (a payload, a header list, an URL), not code. */
const isData = (b: CodeBlock) => b.lang === "json" || b.lang === "text";

function walkthroughBlocks(): CodeBlock[] {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.slice(0, readme.indexOf("## Walk-through with curl")).split("\n").length;
  const end = readme
    .slice(0, readme.indexOf("\n## ", readme.indexOf("## Walk-through with curl") + 1))
    .split("\n").length;
  return codeBlocks("README.md").filter((b) => b.lang === "sh" && b.line > start && b.line < end);
}

const notRun = (b: CodeBlock) => NOT_RUN.find((n) => n.file === b.file && b.code.startsWith(n.starts));

let dataDir: string;
let scratch: ScratchDatabase | undefined;
let server: ServerProcess;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = tempDir("readme");
  if (process.env.TEST_DATABASE_URL) scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL);
  // Webhooks to this machine allowed, as the README says to start it for trying a receiver.
  env = {
    DATA_DIR: path.join(dataDir, "data"),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };
  server = startServer([], env, await freePort());
  // The workroom photo the quick start uploads (`-F "file=@bodice.jpg"`): a 4:3 camera picture,
  // kept at 2048 × 1536 as its sample answer shows.
  fs.writeFileSync(path.join(repoRoot, "bodice.jpg"), await cameraJpeg(4000, 3000));
  await waitForHealth(server, 90_000);
}, 120_000);
afterAll(async () => {
  if (server?.child.exitCode === null) server.child.kill("SIGTERM");
  await server?.exited;
  await scratch?.drop();
  fs.rmSync(path.join(repoRoot, "key.json"), { force: true });
  fs.rmSync(path.join(repoRoot, "bodice.jpg"), { force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ids = new Map<string, string>();
let readmeShell: ShellSession;

describe("the README walk-through", { timeout: 300_000 }, () => {
  it("parses into commands with sample answers", () => {
    const steps = walkthroughBlocks().flatMap((b) => shellSteps(b.code));
    expect(steps.length).toBeGreaterThanOrEqual(8);
    expect(steps.filter((s) => s.expected !== undefined).length).toBeGreaterThanOrEqual(6);
    // Nothing in it stops the server.
    expect(steps.some((s) => /npm start|kill|Ctrl-C/.test(s.command))).toBe(false);
  });

  it("runs on a fresh server, and every answer matches the sample the README shows", async () => {
    readmeShell = new ShellSession(
      dataDir,
      { ...process.env, NODE_ENV: "test", LOG_LEVEL: "warn", ...env },
      {
        documented: DOCUMENTED_URL,
        real: server.url,
      },
    );
    for (const block of walkthroughBlocks())
      for (const step of shellSteps(block.code)) await readmeShell.run(step, ids);
    // The sample ids were bound to real ones: the order's id is the same in every answer.
    expect(ids.get("nc6bzmkmd014706rfda898to")).toMatch(/^[a-z0-9]{24,32}$/);
  });
});

describe("every other sample of the README and the guides runs (issue 28 item 8)", {
  timeout: 300_000,
}, () => {
  it("every block is run by this file or listed with the reason it is not", () => {
    const run = new Set(walkthroughBlocks().map((b) => b.line));
    const unclassified = [codeBlocks("README.md"), ...GUIDES.map(codeBlocks), codeBlocks(CLIENT_README)]
      .flat()
      .filter((b) => !(b.file === "README.md" && run.has(b.line)) && !isData(b) && !notRun(b))
      .filter((b) => b.lang !== "sh" && b.lang !== "ts");
    expect(unclassified.map((b) => `${b.file}:${b.line} (${b.lang})`)).toEqual([]);
    // Every NOT_RUN entry still names a block.
    for (const n of NOT_RUN) {
      expect(
        codeBlocks(n.file).some((b) => b.code.startsWith(n.starts)),
        n.starts,
      ).toBe(true);
    }
    // The guides name one address, $BASE_URL, and the README the one it serves on.
    for (const file of GUIDES) {
      const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
      expect(text, file).not.toMatch(/api\.example\.com|localhost:3000/);
    }
    expect(GUIDES.map((g) => path.basename(g)).sort()).toEqual(
      fs
        .readdirSync(path.join(repoRoot, "docs", "guides"))
        .filter((f) => f.endsWith(".md"))
        .sort(),
    );
  });

  it("the README's other samples and every guide's run against the server, in reading order", async () => {
    if (!readmeShell) throw new Error("the walk-through did not run: it makes the shop the guides use");
    const shellEnv = { ...process.env, NODE_ENV: "test", LOG_LEVEL: "warn", ...env };
    const receiver = await startReceiver();
    try {
      // A real delivery, for the samples that verify one: a webhook to a local receiver, fed by the
      // order status change the quick start makes.
      const readmeRest = codeBlocks("README.md").filter(
        (b) => !walkthroughBlocks().some((w) => w.line === b.line) && !isData(b) && !notRun(b),
      );
      // One terminal for the guides, from the quick start on; the README's own samples in the
      // README's terminal.
      const guideShell = new ShellSession(dataDir, shellEnv, {
        documented: DOCUMENTED_URL,
        real: server.url,
      });
      // Sample ids are bound per terminal: the quick start's order is not the README's.
      const guideIds = new Map<string, string>();
      const vars = async () => ({
        BASE_URL: await guideShell.get("BASE_URL"),
        KEY: await guideShell.get("KEY"),
        ORDER_ID: await guideShell.get("ORDER_ID"),
      });
      let webhook: { id: string; secret: string } | undefined;
      let client: VendorApiClient | undefined;
      const delivery = async () => {
        const [req] = await receiver.waitFor(1, 30_000);
        if (!req || !webhook) throw new Error("no delivery");
        return { secret: webhook.secret, rawBody: req.rawBody, headers: req.headers };
      };
      const replies: number[] = [];
      const ranTs: string[] = [];
      const reply = { code: (n: number) => ({ send: () => replies.push(n) }) };

      const runBlock = async (
        block: CodeBlock,
        shell: ShellSession,
        bound: Map<string, string>,
        env?: Record<string, string>,
      ) => {
        if (block.lang === "sh") {
          for (const step of shellSteps(block.code)) await shell.run(step, bound);
          return;
        }
        if (block.lang !== "ts") throw new Error(`${block.file}:${block.line}: no way to run ${block.lang}`);
        const uses = (name: string) => new RegExp(`\\b${name}\\b`).test(block.code);
        const context: Record<string, unknown> = {
          process: { env: env ?? (await vars()) },
          client,
          reply,
        };
        if (uses("rawBody") && !/function \w+\(secret/.test(block.code)) {
          const d = await delivery();
          Object.assign(context, d, { request: { headers: d.headers } });
        }
        const run = await runTsSample(block, context);
        if (run.values.client instanceof VendorApiClient) client = run.values.client;
        // Functions a sample defines to verify a delivery are tried on a real one, and a forgery.
        let checked = false;
        if (typeof run.values.verifyStandardWebhook === "function") {
          const d = await delivery();
          expect(run.values.verifyStandardWebhook(d.secret, d.rawBody, d.headers), block.file).toBe(true);
          expect(run.values.verifyStandardWebhook("whsk_wrong", d.rawBody, d.headers), block.file).toBe(
            false,
          );
          checked = true;
        }
        if (typeof run.values.verifyServiceSignature === "function") {
          const d = await delivery();
          const signature = String(d.headers["x-service-signature"]);
          expect(run.values.verifyServiceSignature(d.secret, d.rawBody, signature), block.file).toBe(true);
          expect(run.values.verifyServiceSignature("whsk_wrong", d.rawBody, signature), block.file).toBe(
            false,
          );
          checked = true;
        }
        if (run.expected !== undefined) {
          expect(
            matchSample(run.expected, run.output.join("\n"), bound),
            `${block.file}:${block.line} printed:\n${run.output.join("\n")}\nthe document shows:\n${run.expected}`,
          ).toBe(true);
          checked = true;
        }
        if (run.values.pkce === undefined && run.values.verifier !== undefined) {
          // The PKCE values are checked by the authorization that uses them (authorize below).
          checked = true;
        }
        expect(checked, `${block.file}:${block.line} ran, but nothing it did was checked`).toBe(true);
        ranTs.push(`${block.file}:${block.line}`);
        return run;
      };

      for (const file of GUIDES) {
        for (const block of codeBlocks(file)) {
          if (isData(block) || notRun(block)) continue;
          if (
            file.endsWith("quick-start.md") &&
            block.lang === "sh" &&
            /IN_PRODUCTION/.test(block.code) &&
            !webhook
          ) {
            // Before the status change: a webhook that hears it (the samples that verify need one).
            const res = await fetch(`${server.url}/api/vendor/webhooks`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-api-key": await guideShell.get("KEY") },
              body: JSON.stringify({ url: receiver.url, events: ["order.status_changed"] }),
            });
            expect(res.status).toBe(201);
            webhook = (await res.json()) as { id: string; secret: string };
          }
          if (file.endsWith("authentication.md") && block.lang === "sh" && /CODE/.test(block.code)) {
            await authorize(guideShell, pkce);
          }
          const run = await runBlock(block, guideShell, guideIds);
          if (run?.values.verifier) pkce = run.values as Pkce;
        }
      }
      for (const block of readmeRest) await runBlock(block, readmeShell, ids);
      // The client's README, for a shop of its own (its first sample creates a customer the
      // README's shop already has).
      const shop = await runCliJson(env, [
        "vendor",
        "create",
        "--name",
        "Client Shop",
        "--email",
        "client-readme@bella.example",
        "--password",
        "a long secret",
      ]);
      const { key: shopKey } = await runCliJson(env, [
        "api-key",
        "create",
        "--vendor",
        shop.id,
        "--name",
        "k",
      ]);
      client = undefined;
      const clientEnv = {
        BASE_URL: server.url,
        KEY: shopKey as string,
        WEBHOOK_SECRET: (await delivery()).secret,
      };
      for (const block of codeBlocks(CLIENT_README)) {
        if (isData(block) || notRun(block)) continue;
        await runBlock(block, readmeShell, new Map(), clientEnv);
      }
      expect(replies).toEqual([]);
      // Every TypeScript sample ran (README 1, quick start 1, authentication 1, pagination 1, webhooks 2).
      const tsBlocks = [codeBlocks("README.md"), ...GUIDES.map(codeBlocks), codeBlocks(CLIENT_README)]
        .flat()
        .filter((b) => b.lang === "ts" && !notRun(b));
      expect(ranTs.sort()).toEqual(tsBlocks.map((b) => `${b.file}:${b.line}`).sort());
    } finally {
      await receiver.close();
    }
  });
});

interface Pkce {
  verifier: string;
  challenge: string;
  state: string;
}
let pkce: Pkce | undefined;

/**
 * What the authentication guide's reader has between its steps 3 and 4: an application registered
 * by the shop (with the CLI), and the code the redirect brought back after the owner approved on
 * the real consent page, asked for with the guide's own PKCE values.
 */
async function authorize(shell: ShellSession, values: Pkce | undefined): Promise<void> {
  if (!values) throw new Error("the authentication guide's PKCE sample did not run first");
  const app = JSON.parse(
    await shell.run(
      {
        command:
          "npm run -s cli -- app create --vendor owner@bella.example --name Planner --redirect-uri https://app.example/callback --json",
      },
      new Map(),
    ),
  ) as { clientId: string; clientSecret: string };
  const browser = new Browser(server.url);
  const login = await browser.get("/login");
  expect(
    (await browser.submit(login, { email: "owner@bella.example", password: "a long secret" })).status,
  ).toBe(303);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: "https://app.example/callback",
    scope: "orders:read webhooks:write",
    state: values.state,
    code_challenge: values.challenge,
    code_challenge_method: "S256",
  });
  const consent = await browser.get(`/api/oauth/authorize?${query}`);
  expect(consent.status).toBe(200);
  const back = await browser.submit(consent, { decision: "allow" });
  const redirect = new URL(back.location ?? "");
  expect(redirect.searchParams.get("state")).toBe(values.state);
  shell.export({
    CLIENT_ID: app.clientId,
    CLIENT_SECRET: app.clientSecret,
    VERIFIER: values.verifier,
    CODE: redirect.searchParams.get("code") ?? "",
  });
}

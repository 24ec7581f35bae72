// Where `vendor-api listen` takes its key from and where it sends it (CONTRACT 12 and the audit's
// low findings): from VENDOR_API_KEY, a file or standard input, so it need not be in argv where
// `ps` shows it; over https, or plain http to this machine only; and never to another origin on a
// redirect. The CLI runs as its own process against real HTTP servers the test starts, which
// record what reached them and refuse the stream (401), so listen ends by itself.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startCli } from "../helpers/processes.ts";
import { tempDir } from "../helpers/temp-dir.ts";

interface Seen {
  path: string;
  key: string | undefined;
  authorization: string | undefined;
}

interface Server {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

const servers: Server[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A server that records each request's credential and answers with `answer` (default: 401). */
async function startServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => {
    res.writeHead(401, { "content-type": "application/problem+json" });
    res.end(JSON.stringify({ title: "Unauthenticated", detail: "the key is not known here" }));
  },
): Promise<Server> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({
      path: req.url ?? "",
      key: req.headers["x-api-key"] as string | undefined,
      authorization: req.headers.authorization,
    });
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const s: Server = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

const KEY = "vk_live_ListenCredentialTest0123456789";
// No key from the test's own environment, unless a test gives one.
const noEnvKey = { VENDOR_API_KEY: "" };
const forwardTo = "http://127.0.0.1:9/hook";

describe("listen takes its key from outside argv", () => {
  it("reads VENDOR_API_KEY when no --api-key is given", async () => {
    const api = await startServer();
    const r = await runCli(["listen", "--api-url", api.url, "--forward-to", forwardTo], {
      VENDOR_API_KEY: KEY,
    });
    expect(r.stderr).toMatch(/refused the stream \(401\)/);
    expect(r.code).toBe(1);
    // The profile (whose account names the signing secret), then the stream: both to the API.
    expect(api.seen.map((s) => s.key)).toEqual([KEY, KEY]);
  });

  it("reads --api-key-file (its trailing newline is not the key's)", async () => {
    const api = await startServer();
    const dir = tempDir("listen-key");
    dirs.push(dir);
    const file = path.join(dir, "key");
    fs.writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    const r = await runCli(
      ["listen", "--api-url", api.url, "--api-key-file", file, "--forward-to", forwardTo],
      noEnvKey,
    );
    expect(r.code).toBe(1);
    // The profile (whose account names the signing secret), then the stream: both to the API.
    expect(api.seen.map((s) => s.key)).toEqual([KEY, KEY]);
  });

  it("reads --api-key-stdin", async () => {
    const api = await startServer();
    const r = await runCli(
      ["listen", "--api-url", api.url, "--api-key-stdin", "--forward-to", forwardTo],
      noEnvKey,
      `${KEY}\n`,
    );
    expect(r.code).toBe(1);
    // The profile (whose account names the signing secret), then the stream: both to the API.
    expect(api.seen.map((s) => s.key)).toEqual([KEY, KEY]);
  });

  it("without any key, says where to give one (status 2) and sends nothing", async () => {
    const api = await startServer();
    const r = await runCli(["listen", "--api-url", api.url, "--forward-to", forwardTo], noEnvKey);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/VENDOR_API_KEY/);
    expect(api.seen).toHaveLength(0);
  });
});

// These give the key with --api-key, which listen still takes, so they fail before the fix for
// their own reason.
describe("listen sends its key only where it is safe", () => {
  it("refuses plain http to another machine (status 2), and accepts it to localhost", async () => {
    const cli = startCli(
      ["listen", "--api-url", "http://api.example.test", "--api-key", KEY, "--forward-to", forwardTo],
      noEnvKey,
    );
    // Before, it kept trying to connect (and would have sent the key in the clear).
    const outcome = await Promise.race([
      cli.exited,
      cli.waitFor("stderr", /reconnecting|connected to/).then(() => "kept going"),
    ]);
    if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    expect(outcome).toBe(2);
    expect(cli.stderr()).toMatch(/--api-url must be https/);

    const api = await startServer();
    const local = api.url.replace("127.0.0.1", "localhost");
    const r = await runCli(
      ["listen", "--api-url", local, "--api-key", KEY, "--forward-to", forwardTo],
      noEnvKey,
    );
    expect(r.code).toBe(1);
    // The profile (whose account names the signing secret), then the stream: both to the API.
    expect(api.seen.map((s) => s.key)).toEqual([KEY, KEY]);
  });

  it("never sends the key to another origin on a redirect, and follows one within the origin", async () => {
    const elsewhere = await startServer();
    const api = await startServer((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/api/vendor/events/stream` });
      res.end();
    });
    const r = await runCli(
      ["listen", "--api-url", api.url, "--api-key", KEY, "--forward-to", forwardTo],
      noEnvKey,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/redirected to another origin/);
    // The first request (the profile) is redirected away: listen stops there.
    expect(api.seen.map((s) => s.key)).toEqual([KEY]);
    expect(elsewhere.seen.filter((s) => s.key !== undefined || s.authorization !== undefined)).toEqual([]);

    // Within the origin the key goes along: the redirected request is the one refused.
    const moved = await startServer((req, res) => {
      if (req.url?.startsWith("/api/vendor/events/stream")) {
        res.writeHead(308, { location: "/v2/events/stream" });
        res.end();
        return;
      }
      res.writeHead(401, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ detail: "unknown key" }));
    });
    const same = await runCli(
      ["listen", "--api-url", moved.url, "--api-key", KEY, "--forward-to", forwardTo],
      noEnvKey,
    );
    expect(same.code).toBe(1);
    expect(same.stderr).toMatch(/refused the stream \(401\)/);
    expect(moved.seen.map((s) => [s.path.split("?")[0], s.key])).toEqual([
      ["/api/vendor/profile", KEY],
      ["/api/vendor/events/stream", KEY],
      ["/v2/events/stream", KEY],
    ]);
  });
});

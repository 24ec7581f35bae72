// The docs surface over real HTTP: the reference page runs our own copy of Redoc under a strict
// CSP, every guide renders from its markdown, raw HTML in markdown comes out as text, and the
// errors guide explains every code of the catalog (the page problem `type` URIs point at).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allScopes } from "../../src/auth/scopes.ts";
import { errorRemedies } from "../../src/docs/error-remedies.ts";
import { renderMarkdown } from "../../src/docs/guides.ts";
import { GUIDES } from "../../src/docs/page-frame.ts";
import { IMMUTABLE, REDOC_SCRIPT_PATH, REFERENCE_CSP } from "../../src/docs/reference-page.ts";
import { errorCatalog } from "../../src/errors.ts";
import { allEventTypes } from "../../src/modules/events/catalog.ts";
import { repoRoot } from "../helpers/processes.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A GET whose body is the bytes on the wire (fetch would decode them). */
function rawGet(
  urlPath: string,
  acceptEncoding: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${t.url}${urlPath}`,
      { headers: { "accept-encoding": acceptEncoding, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
}

const guideFiles = fs
  .readdirSync(path.join(repoRoot, "docs", "guides"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => f.replace(/\.md$/, ""));

describe("/docs: the API reference", () => {
  it("serves the reference page titled for vendor-api, loading only our own script", async () => {
    const res = await t.api.get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.text).toContain("<title>vendor-api reference</title>");
    expect(res.text).not.toMatch(/swagger/i);
    expect(res.text).toContain('<redoc spec-url="/openapi.json">');
    const scripts = [...res.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([REDOC_SCRIPT_PATH]);
    expect(res.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(res.headers.get("content-security-policy")).toBe(REFERENCE_CSP);
    expect(REFERENCE_CSP).toContain("script-src 'self'");
    expect(REFERENCE_CSP).not.toMatch(/https?:|\*|unsafe-eval/);
  });

  it("serves Redoc's bundle itself, cacheable for a year", async () => {
    const res = await fetch(`${t.url}${REDOC_SCRIPT_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await res.text()).length).toBeGreaterThan(100_000);
  });

  it("names the bundle by its content hash", () => {
    expect(REDOC_SCRIPT_PATH).toMatch(/^\/docs\/assets\/redoc-[0-9a-f]{16}\.js$/);
  });

  it.each([
    ["br", (b: Buffer) => zlib.brotliDecompressSync(b)],
    ["gzip", (b: Buffer) => zlib.gunzipSync(b)],
  ] as const)(
    "answers Accept-Encoding %s compressed, with Vary, for every text of the reference",
    async (encoding, decode) => {
      for (const url of [
        "/docs",
        REDOC_SCRIPT_PATH,
        "/openapi.json",
        "/docs/guides/webhooks",
        "/docs/events",
      ]) {
        const plain = await rawGet(url, "identity");
        const res = await rawGet(url, `${encoding}, deflate`);
        expect(res.status, url).toBe(200);
        expect(res.headers["content-encoding"], url).toBe(encoding);
        expect(res.headers.vary, url).toMatch(/accept-encoding/i);
        expect(plain.headers["content-encoding"], url).toBeUndefined();
        expect(plain.headers.vary, url).toMatch(/accept-encoding/i);
        expect(res.body.length, url).toBeLessThan(plain.body.length);
        expect(decode(res.body).equals(plain.body), url).toBe(true);
      }
    },
  );

  it("caches the fingerprinted bundle for a year, and answers 304 to its ETag", async () => {
    const res = await rawGet(REDOC_SCRIPT_PATH, "br");
    expect(res.headers["cache-control"]).toBe(IMMUTABLE);
    expect(IMMUTABLE).toBe("public, max-age=31536000, immutable");
    const again = await rawGet(REDOC_SCRIPT_PATH, "br", { "if-none-match": String(res.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await rawGet("/docs", "br")).headers["cache-control"]).toBe("no-cache");
  });

  it("/docs weighs at most 500 KiB on the wire with Brotli or gzip (page, bundle, document)", async () => {
    for (const encoding of ["br", "gzip"]) {
      let total = 0;
      for (const url of ["/docs", REDOC_SCRIPT_PATH, "/openapi.json"]) {
        const res = await rawGet(url, encoding);
        total += res.body.length + JSON.stringify(res.headers).length;
      }
      console.log(`/docs on the wire with ${encoding}: ${(total / 1024).toFixed(1)} KiB`);
      expect(total).toBeLessThanOrEqual(500 * 1024);
    }
  });

  it("/docs/ redirects to /docs", async () => {
    const res = await fetch(`${t.url}/docs/`, { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/docs");
  });
});

describe("/docs/guides", () => {
  it("lists every markdown file in docs/guides, and nothing else", () => {
    expect(GUIDES.map((g) => g.name).sort()).toEqual([...guideFiles].sort());
    expect(guideFiles.length).toBeGreaterThanOrEqual(8);
  });

  it.each(GUIDES.map((g) => [g.name, g.title]))(
    "renders %s with navigation to every guide",
    async (name, title) => {
      const res = await t.api.get(`/docs/guides/${name}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`<title>${title} · vendor-api guides</title>`);
      expect(res.text).toMatch(/<h1[^>]*>/);
      expect(res.text).toContain(`<a href="/docs/guides/${name}" aria-current="page">`);
      for (const other of GUIDES) expect(res.text).toContain(`href="/docs/guides/${other.name}"`);
      expect(res.text).toContain('href="/docs"');
      expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
      expect(res.text).not.toMatch(/<script/i);
      // Public text names no internal document.
      expect(res.text).not.toMatch(/CONTRACT|spec \d/);
    },
  );

  it("escapes raw HTML written in markdown instead of rendering it", () => {
    const html = renderMarkdown(
      'Hello <script>alert(1)</script> <img src=x onerror="alert(2)">\n\n<div onclick="x()">block</div>\n\n[x](javascript:alert(3))',
    );
    expect(html).not.toMatch(/<script|<img|<div|onerror="|onclick="/i);
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("&lt;div onclick=");
    expect(html).not.toMatch(/href="javascript:/i);
    expect(renderMarkdown("![a photo](https://tracker.example/p.gif)")).not.toContain("<img");
  });

  it("an unknown guide is a 404", async () => {
    const res = await t.api.get("/docs/guides/nope");
    expect(res.status).toBe(404);
  });
});

describe("guides agree with the code", () => {
  it("the webhooks guide names every event type", async () => {
    const res = await t.api.get("/docs/guides/webhooks");
    for (const type of allEventTypes) expect(res.text, type).toContain(`<code>${type}</code>`);
  });

  it("the authentication guide names every scope", async () => {
    const res = await t.api.get("/docs/guides/authentication");
    for (const scope of allScopes) expect(res.text, scope).toContain(`<code>${scope}</code>`);
  });
});

describe("the errors guide", () => {
  it("/docs/errors is the errors guide, with cause and remedy for every code of the catalog", async () => {
    const res = await t.api.get("/docs/errors");
    expect(res.status).toBe(200);
    const guide = await t.api.get("/docs/guides/errors");
    expect(res.text).toBe(guide.text);
    for (const [code, { status, title }] of Object.entries(errorCatalog)) {
      const at = res.text.indexOf(`id="${code}"`);
      expect(at, code).toBeGreaterThan(0);
      const entry = res.text.slice(at, res.text.indexOf("</section>", at));
      expect(entry).toContain(`· ${status}</h3>`);
      expect(entry).toContain(title);
      expect(entry).toContain("Cause");
      expect(entry).toContain("Remedy");
    }
    expect(Object.keys(errorRemedies).sort()).toEqual(Object.keys(errorCatalog).sort());
  });

  it("the versioning guide carries the changelog", async () => {
    const res = await t.api.get("/docs/guides/versioning");
    const changelog = fs.readFileSync(path.join(repoRoot, "CHANGELOG.md"), "utf8");
    const firstRelease = /^## \[([^\]]+)\]/m.exec(changelog)?.[1] as string;
    expect(res.text).toContain('id="changelog"');
    expect(res.text).toContain(firstRelease);
  });
});

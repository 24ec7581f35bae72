// The shared security suite (STYLE): for a route, the properties every authenticated route must
// have, each as its own test: 401 without credentials, 401 for a revoked key, 403 for a key
// restricted to other scopes, 404 for another vendor's id, and no body field that writes what
// the server owns (id, vendorId, status on create, timestamps).

import { describe, expect, it } from "vitest";
import { allScopes, type Scope } from "../../src/auth/scopes.ts";
import { GUIDES } from "../../src/docs/page-frame.ts";
import { REDOC_SCRIPT_PATH } from "../../src/docs/reference-page.ts";
import { createKey, createRevokedKey, createVendorWithKey } from "./factories.ts";
import type { TestApp } from "./test-app.ts";

export interface Owned {
  vendorId: string;
  key: string;
}

export interface SecuredRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with `:id` where the route takes one. */
  path: string;
  scope: Scope;
  /** Creates a resource owned by `owner` and returns its id (routes with `:id`). */
  makeResource?: (t: TestApp, owner: Owned) => Promise<string>;
  /** A valid body for `owner` (routes with a body). */
  body?: (t: TestApp, owner: Owned) => Promise<Record<string, unknown>>;
  /** Fields the body must refuse; default id, vendorId, createdAt, updatedAt. */
  ownedFields?: string[];
}

const DEFAULT_OWNED_FIELDS = ["id", "vendorId", "createdAt", "updatedAt"];

export function securitySuite(getApp: () => TestApp, route: SecuredRoute): void {
  const title = `${route.method} ${route.path}`;

  async function prepare(t: TestApp, owner: Owned) {
    const id = route.makeResource ? await route.makeResource(t, owner) : undefined;
    const body = route.body ? await route.body(t, owner) : undefined;
    const path = id ? route.path.replace(":id", id) : route.path;
    return { path, body };
  }

  async function send(t: TestApp, path: string, body: unknown, options: { key?: string }) {
    return t.api.request(route.method, `/api/vendor${path}`, { ...options, ...(body ? { body } : {}) });
  }

  describe(`${title} security`, () => {
    it("answers 401 unauthenticated without credentials, with WWW-Authenticate", async () => {
      const t = getApp();
      const { vendor, key } = await createVendorWithKey(t.ctx);
      const { path, body } = await prepare(t, { vendorId: vendor.id, key });
      const res = await send(t, path, body, {});
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("unauthenticated");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vendor-api"');
    });

    it("answers 401 invalid_credentials for a revoked key", async () => {
      const t = getApp();
      const { vendor, key } = await createVendorWithKey(t.ctx);
      const { path, body } = await prepare(t, { vendorId: vendor.id, key });
      const revoked = await createRevokedKey(t.ctx, vendor.id);
      const res = await send(t, path, body, { key: revoked });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("invalid_credentials");
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    });

    it(`answers 403 insufficient_scope for a key with every scope but ${route.scope}`, async () => {
      const t = getApp();
      const { vendor, key } = await createVendorWithKey(t.ctx);
      const { path, body } = await prepare(t, { vendorId: vendor.id, key });
      const restricted = await createKey(
        t.ctx,
        vendor.id,
        allScopes.filter((s) => s !== route.scope),
      );
      const res = await send(t, path, body, { key: restricted });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("insufficient_scope");
      expect(res.headers.get("www-authenticate")).toContain(`scope="${route.scope}"`);
      // The same request with a key restricted to exactly that scope is let through.
      const exact = await createKey(t.ctx, vendor.id, [route.scope]);
      const allowed = await send(t, path, body, { key: exact });
      expect([401, 403]).not.toContain(allowed.status);
    });

    if (route.path.includes(":id")) {
      it("answers 404 not_found for another vendor's id, and for a malformed id", async () => {
        const t = getApp();
        const owner = await createVendorWithKey(t.ctx);
        const { path, body } = await prepare(t, { vendorId: owner.vendor.id, key: owner.key });
        const other = await createVendorWithKey(t.ctx);
        // The other vendor's own valid body (its references), aimed at the owner's id.
        const otherBody = route.body
          ? await route.body(t, { vendorId: other.vendor.id, key: other.key })
          : body;
        const res = await send(t, path, otherBody, { key: other.key });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe("not_found");
        const malformed = await send(t, route.path.replace(":id", "not-an-id'"), otherBody, {
          key: other.key,
        });
        expect(malformed.status).toBe(404);
        // The owner still sees it unchanged in status (the refused request wrote nothing visible).
        const mine = await send(t, path, body, { key: owner.key });
        expect(mine.status).toBeLessThan(300);
      });
    }

    if (route.body) {
      for (const field of route.ownedFields ?? DEFAULT_OWNED_FIELDS) {
        it(`refuses a body that sets ${field} (400 validation_failed naming it)`, async () => {
          const t = getApp();
          const { vendor, key } = await createVendorWithKey(t.ctx);
          const { path, body } = await prepare(t, { vendorId: vendor.id, key });
          const value = field.endsWith("At")
            ? new Date().toISOString()
            : field === "status"
              ? "CONFIRMED"
              : vendor.id;
          const res = await send(t, path, { ...body, [field]: value }, { key });
          expect(res.status).toBe(400);
          expect(res.body.code).toBe("validation_failed");
          expect(res.body.errors).toContainEqual({ field, message: "is not an accepted field" });
        });
      }
    }
  });
}

/**
 * Routes exempt from the answer hygiene below, each with its reason. Probes and metrics must
 * answer whoever asks as often as asked (a refused probe restarts a healthy instance); the API
 * documentation is the same static text for everyone and carries no data.
 */
export const HYGIENE_EXEMPT: Record<string, string> = {
  "GET /health": "liveness probe",
  "GET /ready": "readiness probe",
  "GET /metrics": "Prometheus scrape",
  "GET /openapi.json": "static API description",
  "GET /docs": "static API reference page",
  "GET /docs/": "redirect to the static API reference page",
  [`GET ${REDOC_SCRIPT_PATH}`]: "static reference renderer, cached for a year on purpose",
  "GET /docs/errors": "static error catalogue",
  "GET /docs/events": "static event catalogue",
  ...Object.fromEntries(GUIDES.map((g) => [`GET /docs/guides/${g.name}`, "static guide"])),
};

/** Cacheable on purpose (versionless public assets): every rule but no-store applies. */
const CACHEABLE = new Set(["GET /assets/dashboard.css", "GET /assets/copy-secret.js"]);

export interface HygieneCredentials {
  /** A valid API key (all scopes), for /api/vendor routes. */
  key: string;
  /** Cookie header of a signed-in dashboard session, for pages. */
  cookie: string;
  /** A real vendor id, for `:vendorId`. */
  vendorId: string;
}

const UNKNOWN_ID = "tz4a98xxat96iws9zmbrgj3a";

function concretePath(url: string, credentials: HygieneCredentials): string {
  return url
    .replace(":vendorId", credentials.vendorId)
    .replace(":token", "A".repeat(43))
    .replace(/:[A-Za-z]+/g, UNKNOWN_ID)
    .replace("*", "x");
}

/**
 * For every route the app registered (CONTRACT 1 and 8): every answer, errors included,
 * carries RateLimit-Limit, -Remaining, -Reset, RateLimit-Policy and RateLimit,
 * `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`; and a U+0000 in the query
 * string and in the body is answered 4xx (or the page, for pages that ignore the field), never 5xx.
 */
export function everyRouteHygieneSuite(
  getApp: () => TestApp,
  routes: Array<{ method: string; url: string }>,
  getCredentials: () => HygieneCredentials,
): void {
  for (const route of routes) {
    const title = `${route.method} ${route.url}`;
    if (HYGIENE_EXEMPT[title]) continue;
    describe(`${title} answer hygiene`, () => {
      async function send(nul: boolean) {
        const t = getApp();
        const credentials = getCredentials();
        const path = concretePath(route.url, credentials);
        const headers: Record<string, string> = {};
        let body: string | undefined;
        const isApi = path.startsWith("/api/vendor") || path.startsWith("/api/public");
        if (path.startsWith("/api/vendor")) headers["x-api-key"] = credentials.key;
        else headers.cookie = credentials.cookie;
        if (route.method !== "GET" && route.method !== "DELETE") {
          if (isApi) {
            headers["content-type"] = "application/json";
            body = JSON.stringify(nul ? { name: "a\u0000b", message: "\u0000" } : {});
          } else {
            headers["content-type"] = "application/x-www-form-urlencoded";
            body = new URLSearchParams(
              nul ? { name: "a\u0000b", client_id: "app_\u0000" } : { name: "a" },
            ).toString();
          }
        }
        const query = nul ? `?${path.startsWith("/api/vendor") ? "cursor" : "client_id"}=a%00b` : "";
        return fetch(`${t.url}${path}${query}`, { method: route.method, headers, body, redirect: "manual" });
      }

      function expectHygiene(res: Response) {
        for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
          expect(res.headers.get(name), `${name} (status ${res.status})`).toMatch(/^\d+$/);
        }
        expect(res.headers.get("ratelimit-policy")).toMatch(/^"[a-z-]+";q=\d+;w=\d+$/);
        expect(res.headers.get("ratelimit")).toMatch(/^"[a-z-]+";r=\d+;t=\d+$/);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        if (!CACHEABLE.has(title)) expect(res.headers.get("cache-control")).toBe("no-store");
      }

      it("carries the RateLimit headers, nosniff and no-store", async () => {
        const res = await send(false);
        // An event stream never ends by itself: its headers are the answer, then hang up.
        if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
        else await res.arrayBuffer();
        expectHygiene(res);
      });

      it("answers a NUL in the query and the body without a 5xx, with the same headers", async () => {
        const res = await send(true);
        const text = await res.text();
        expect(res.status, text.slice(0, 300)).toBeLessThan(500);
        expectHygiene(res);
      });
    });
  }
}

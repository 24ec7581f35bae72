// The shared security suite (STYLE): for a route, the properties every authenticated route must
// have, each as its own test: 401 without credentials, 401 for a revoked key, 403 for a key
// restricted to other scopes, 404 for another vendor's id, and no body field that writes what
// the server owns (id, vendorId, status on create, timestamps).
import { describe, expect, it } from "vitest";
import { allScopes, type Scope } from "../../src/auth/scopes.ts";
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

// Every /api/vendor route that declares a scope refuses an access token without it. The routes
// are read from the OpenAPI document, where every scoped route lists its oauth2 scope, so a
// route added later is covered without touching this file.
import { createId } from "@paralleldrive/cuid2";
import { describe, expect, it } from "vitest";
import { allScopes } from "../../src/auth/scopes.ts";
import { createClient, obtainTokens } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

interface ScopedRoute {
  method: string;
  path: string;
  scope: string;
}

async function scopedRoutes(): Promise<ScopedRoute[]> {
  const doc = (await t.api.get("/openapi.json")).body as {
    paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
  };
  const routes: ScopedRoute[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const scope = operation.security?.find((s) => s.oauth2)?.oauth2?.[0];
      if (scope) routes.push({ method: method.toUpperCase(), path, scope });
    }
  }
  return routes;
}

describe("every scoped API route answers a token lacking its scope with 403 insufficient_scope", () => {
  it("each route declared with config.scope refuses a token granted every other scope but that one", async () => {
    const routes = await scopedRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(4);
    expect(routes.every((r) => r.path.startsWith("/api/vendor/"))).toBe(true);
    const client = await createClient(t.ctx);
    const tokens = new Map<string, string>();
    for (const scope of new Set(routes.map((r) => r.scope))) {
      const others = allScopes.filter((s) => s !== scope).join(" ");
      tokens.set(scope, (await obtainTokens(t, client, others)).access_token);
    }
    for (const route of routes) {
      const path = route.path.replace(/\{[^}]+\}/g, () => createId());
      const res = await t.api.request(route.method, path, { token: tokens.get(route.scope) ?? "" });
      const where = `${route.method} ${route.path}`;
      expect(res.status, where).toBe(403);
      expect(res.body.code, where).toBe("insufficient_scope");
      expect(res.headers.get("www-authenticate"), where).toContain(`scope="${route.scope}"`);
    }
  });
});

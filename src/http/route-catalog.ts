import type { FastifyInstance } from "fastify";
import type { Scope } from "../auth/scopes.ts";

export interface CatalogedRoute {
  method: string;
  url: string;
  scope: Scope | undefined;
  /** The scopes a route that picks one from its query may need (the sync checksum). */
  scopes?: readonly Scope[] | undefined;
  documented: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route the app registered, so tests can hold each one to the same rules. */
    routeCatalog: CatalogedRoute[];
  }
}

export function registerRouteCatalog(app: FastifyInstance): void {
  const catalog: CatalogedRoute[] = [];
  app.decorate("routeCatalog", catalog);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue;
      catalog.push({
        method,
        url: route.url,
        scope: route.config?.scope,
        scopes: route.config?.scopeChoices,
        documented: !(route.schema as { hide?: boolean } | undefined)?.hide,
      });
    }
  });
}

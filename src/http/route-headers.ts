// Request headers a plugin reads (Idempotency-Key, If-None-Match, If-Match) added to a route's
// schema as it is registered, so the OpenAPI document lists them beside the route's own.
import type { RouteOptions } from "fastify";

export function documentRequestHeaders(route: RouteOptions, properties: Record<string, unknown>): void {
  const schema = (route.schema ?? {}) as { headers?: { properties?: object; type?: string } };
  route.schema = {
    ...schema,
    headers: {
      type: "object",
      ...schema.headers,
      properties: { ...schema.headers?.properties, ...properties },
    },
  } as typeof route.schema;
}

// Unknown query parameters are 400 validation_failed naming them (CONTRACT 1): a misspelt
// `?limt=5` or a filter the operation does not have must not answer 200 as if it had worked.
// Every route registered afterwards in the scope gets a query schema that admits only the
// parameters it declares (none, when it declares no query schema).
import type { FastifyInstance } from "fastify";

export function registerStrictQuery(scope: FastifyInstance): void {
  scope.addHook("onRoute", (route) => {
    const schema = (route.schema ?? {}) as { querystring?: Record<string, unknown> };
    const query = schema.querystring ?? { type: "object", properties: {} };
    if (query.additionalProperties !== undefined) return;
    route.schema = {
      ...schema,
      querystring: { ...query, additionalProperties: false },
    } as typeof route.schema;
  });
}

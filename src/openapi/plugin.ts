// The OpenAPI 3.1 document is generated from the route schemas (TypeBox is the single source);
// this module adds what routes cannot say themselves: security schemes and per-route security.
import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { scopeDescriptions } from "../auth/scopes.ts";
import type { Config } from "../config.ts";
import type { ErrorCode } from "../errors.ts";
import { declaredApiTags } from "../http/api-tags.ts";
import { type EncodedText, encodeText, sendEncoded } from "../http/compressed-answer.ts";
import { routeErrorCodes } from "../http/route-errors.ts";
import { finishDocument } from "./document.ts";
import { eventUnion } from "./event-union.ts";
import { webhooksDocument } from "./webhooks.ts";

export const API_VERSION = "1.0.0";

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  // What routes say in their config that the document must carry, by `<method> <path>` as the
  // document names operations: bodies that may be left out (config.optionalBody,
  // src/http/json-body.ts; @fastify/swagger marks every declared body required), and the error
  // codes each can answer (src/http/route-errors.ts).
  const optionalBodies = new Set<string>();
  const errorCodes = new Map<string, readonly ErrorCode[]>();
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    for (const method of methods) {
      const operation = `${method.toLowerCase()} ${path}`;
      if (route.config?.optionalBody) optionalBodies.add(operation);
      errorCodes.set(operation, routeErrorCodes(route, method));
    }
  });
  // Every scoped route documents both credentials and the scope it needs.
  app.addHook("onRoute", (route) => {
    const scope = route.config?.scope;
    if (!scope) return;
    const choices = route.config?.scopeChoices ?? [scope];
    route.schema = {
      ...route.schema,
      security: [{ apiKey: [] }, ...choices.map((s) => ({ oauth2: [s] }))],
    } as typeof route.schema;
  });

  await app.register(swagger, {
    transformObject: (document) => {
      const openapiObject = (document as { openapiObject: { paths?: object } }).openapiObject;
      const paths = (openapiObject.paths ?? {}) as Record<string, Record<string, { requestBody?: object }>>;
      for (const [path, operations] of Object.entries(paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (operation.requestBody && optionalBodies.has(`${method} ${path}`)) {
            operation.requestBody = { ...operation.requestBody, required: false };
          }
        }
      }
      // Named schemas, problem+json errors, headers and examples (see document.ts).
      return finishDocument(
        openapiObject as Record<string, unknown>,
        { errorCodes, tags: declaredApiTags() },
        (components) => ({ Event: eventUnion(components) }),
      ) as never;
    },
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "vendor-api",
        version: API_VERSION,
        description:
          "The integration API of the formalwear vendor platform: orders, customers, appointments, webhooks. " +
          "Paths are unversioned; a breaking change gets a new path prefix. Errors are RFC 9457 problem details " +
          `(codes listed at ${config.publicUrl}/docs/errors).`,
      },
      servers: [{ url: config.publicUrl }],
      webhooks: webhooksDocument(),
      components: {
        securitySchemes: {
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "X-Api-Key",
            description:
              "A vendor API key. `vk_…`: live, the shop's own data. `vk_test_…`: a test key, which acts for the " +
              "shop's sandbox, a separate copy of every resource (orders, customers, appointments, inquiries, " +
              "webhooks, events) that never sees live data and is never seen by live keys; `GET /api/vendor/profile` " +
              "answers `livemode: false` to it. OAuth access tokens are always live.",
          },
          oauth2: {
            type: "oauth2",
            description: "Authorization code with PKCE (S256)",
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.publicUrl}/api/oauth/authorize`,
                tokenUrl: `${config.publicUrl}/api/oauth/token`,
                refreshUrl: `${config.publicUrl}/api/oauth/token`,
                scopes: { ...scopeDescriptions },
              },
            },
          },
        },
      },
    },
  });
  // The reference that renders this document is served by src/docs/reference-page.ts.
  // The document is fixed once the app is ready: serialized and compressed once (332 kB as text).
  let document: Promise<EncodedText> | undefined;
  app.get("/openapi.json", { schema: { hide: true } }, async (request, reply) => {
    document ??= encodeText(JSON.stringify(app.swagger()));
    return sendEncoded(request, reply.type("application/json; charset=utf-8"), await document);
  });
}

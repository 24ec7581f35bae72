// Finishes the OpenAPI document @fastify/swagger generates from the route schemas: named component
// schemas referenced everywhere, problem+json errors listing only the codes each operation can
// answer, response headers, OAuth form bodies, `security: []` on public operations, and a
// bridal-shop example on every request and response. Routes stay the single source of shapes;
// this module adds what a route schema cannot say.
import { type ErrorCode, errorCatalog, errorCodes } from "../errors.ts";
import { Problem } from "../http/common-schemas.ts";
import { isComponentName } from "../http/schema-names.ts";
import { appointmentTransitions } from "../modules/appointments/appointments.workflow.ts";
import { eventCatalog, eventTypes } from "../modules/events/catalog.ts";
import { orderTransitions } from "../modules/orders/orders.workflow.ts";
import { eventDataExamples, exampleIds, schemaExamples } from "./examples.ts";

type Json = Record<string, any>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

// ---------------------------------------------------------------- named schemas

/** Replaces every titled subschema by a $ref to its component (made on first sight). */
function hoist(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => hoist(n, components));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "examples" || k === "example" ? v : hoist(v, components);
  const title = out.title;
  if (typeof title === "string" && isComponentName(title)) {
    if (!components[title]) {
      const example = schemaExamples[title];
      components[title] = example === undefined ? out : { ...out, examples: [example] };
    }
    return ref(title);
  }
  return out;
}

/** The events API's Event: one shape per event type, told apart by its `event` member. */
function eventUnion(components: Json): Json {
  const variants: Json[] = [];
  const mapping: Record<string, string> = {};
  for (const type of eventTypes) {
    const name = `${type.replace(/(^|[._])(.)/g, (_m, _s, c: string) => c.toUpperCase())}Event`;
    const payload = hoist(eventCatalog[type].payload, components);
    components[name] = {
      type: "object",
      title: name,
      description: eventCatalog[type].description,
      required: ["id", "event", "data", "createdAt"],
      properties: {
        id: { type: "string", description: "The event id" },
        event: { type: "string", const: type },
        data: payload,
        createdAt: { type: "string", format: "date-time" },
      },
      examples: [
        { id: exampleIds.event, event: type, data: eventDataExamples[type], createdAt: exampleIds.moved },
      ],
    };
    variants.push(ref(name));
    mapping[type] = `#/components/schemas/${name}`;
  }
  return {
    title: "Event",
    description: "An event as its webhook deliveries carry it; `event` tells which payload `data` is",
    oneOf: variants,
    discriminator: { propertyName: "event", mapping },
    examples: [schemaExamples.Event],
  };
}

// ---------------------------------------------------------------- errors

const problemExamples: Record<ErrorCode, Json> = {
  invalid_json: { detail: "Body is not valid JSON: Unexpected end of JSON input at position 41" },
  validation_failed: {
    detail: "size must NOT have more than 50 characters",
    errors: [{ field: "size", message: "must NOT have more than 50 characters" }],
  },
  unknown_reference: {
    detail: "customerId names no customer of this vendor",
    errors: [{ field: "customerId", message: "names no customer of this vendor" }],
  },
  ambiguous_credentials: { detail: "Send either X-Api-Key or Authorization, not both" },
  unauthenticated: { detail: "Send an API key in X-Api-Key or an OAuth access token as Bearer" },
  invalid_credentials: { detail: "The API key or access token is unknown, expired or revoked" },
  insufficient_scope: { detail: "This operation needs the scope orders:write" },
  not_found: { detail: "Order not found" },
  route_not_found: { detail: "No route GET /api/vendor/order" },
  method_not_allowed: { detail: "DELETE is not allowed here" },
  invalid_transition: {
    detail: "An order in PICKED_UP cannot move to IN_PRODUCTION",
    currentStatus: "PICKED_UP",
    allowedStatuses: ["RETURNED", "COMPLETED"],
  },
  appointment_not_deletable: {
    detail: "Only a PROPOSED or CANCELLED appointment can be deleted; cancel it first",
  },
  webhook_limit_reached: { detail: "A vendor can register at most 5 webhooks" },
  customer_email_taken: {
    detail: "Another customer of this vendor has this e-mail address",
    errors: [{ field: "email", message: "is already used by another customer" }],
    existingId: exampleIds.maria,
  },
  external_id_taken: {
    detail: "Another customer of this vendor has this externalId",
    errors: [{ field: "externalId", message: "is already used by another customer" }],
    existingId: exampleIds.maria,
  },
  slot_taken: {
    detail: "2027-05-04T08:00:00.000Z is not a free start time",
    errors: [{ field: "start", message: "is not a free start time (taken, or outside the shop's hours)" }],
    start: "2027-05-04T08:00:00.000Z",
  },
  storage_quota_exceeded: {
    detail:
      "This shop's photos would take more than its 1 GiB of storage: delete orders' photos or ask for more",
    errors: [{ field: "file", message: "would exceed the shop's 1 GiB of photo storage" }],
  },
  idempotency_key_in_use: { detail: "A request with this Idempotency-Key is still being processed" },
  precondition_failed: {
    detail: "The resource changed since the ETag in If-Match: read it again, then apply your change to it",
  },
  request_timeout: { detail: "The request body did not arrive in time" },
  headers_too_large: { detail: "The request headers are larger than the server accepts" },
  payload_too_large: { detail: "The body is larger than 1 MiB" },
  unsupported_media_type: { detail: "Send the body as application/json" },
  idempotency_key_reused: { detail: "This Idempotency-Key was used for a different request" },
  rate_limited: { detail: "Over 600 requests a minute; retry after the Retry-After seconds" },
  internal_error: { detail: "An unexpected error occurred; quote the requestId to support" },
  unavailable: { detail: "The database is unreachable; retry after the Retry-After seconds" },
};

function problemExample(code: ErrorCode): Json {
  const { status, title } = errorCatalog[code];
  return {
    type: `https://api.vendor-api.example/docs/errors#${code}`,
    title,
    status,
    code,
    ...problemExamples[code],
    requestId: "req-7f3c9a2b1d",
  };
}

interface OperationFacts {
  path: string;
  method: string;
  operationId: string;
  authenticated: boolean;
  hasBody: boolean;
  /** The codes its route declares beyond its kind's (the route's `config.errors`). */
  declared: readonly ErrorCode[];
}

function errorCodesFor(op: OperationFacts): ErrorCode[] {
  const codes = new Set<ErrorCode>(["validation_failed", "rate_limited", "internal_error", "unavailable"]);
  if (op.authenticated) {
    for (const c of [
      "ambiguous_credentials",
      "unauthenticated",
      "invalid_credentials",
      "insufficient_scope",
    ] as const)
      codes.add(c);
  }
  if (op.hasBody) codes.add("invalid_json");
  // A body where the operation takes none (a DELETE with one) is refused, not ignored: 400 when
  // it is JSON, and like any body 415 in another type and 413 over the limit (json-body.ts).
  if (op.hasBody || op.method !== "get")
    for (const c of ["payload_too_large", "unsupported_media_type"] as const) codes.add(c);
  if (op.method === "post" && op.path.startsWith("/api/vendor/")) {
    codes.add("idempotency_key_in_use");
    codes.add("idempotency_key_reused");
  }
  if (op.path.includes("{")) codes.add("not_found");
  for (const c of op.declared) codes.add(c);
  return errorCodes.filter((c) => codes.has(c));
}

function errorResponses(op: OperationFacts, commonHeaders: Json): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(op)) {
    const status = errorCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = { ...commonHeaders };
    if (status === 401 || status === 403) headers["WWW-Authenticate"] = headerRef("WWW-Authenticate");
    if (status === 429 || status === 503) headers["Retry-After"] = headerRef("Retry-After");
    if (codes.includes("idempotency_key_in_use")) headers["Retry-After"] = headerRef("Retry-After");
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${errorCatalog[c].title}`).join("; "),
      headers,
      content: {
        "application/problem+json": {
          schema: { allOf: [ref("Problem"), { type: "object", properties: { code: { enum: codes } } }] },
          examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
        },
      },
    };
  }
  return out;
}

// ---------------------------------------------------------------- headers

const headers: Json = {
  "X-Request-Id": {
    required: true,
    description:
      "The request's id (an inbound X-Request-Id of 1-128 safe characters is echoed); also in problem bodies",
    schema: { type: "string" },
    example: "req-7f3c9a2b1d",
  },
  "RateLimit-Limit": {
    required: true,
    description: "Requests allowed in the window",
    schema: { type: "integer" },
    example: 600,
  },
  "RateLimit-Remaining": {
    required: true,
    description: "Requests left in the window",
    schema: { type: "integer" },
    example: 597,
  },
  "RateLimit-Reset": {
    required: true,
    description: "Seconds until the window resets",
    schema: { type: "integer" },
    example: 42,
  },
  "RateLimit-Policy": {
    required: true,
    description: 'The policy, as `"<name>";q=<quota>;w=<window seconds>`',
    schema: { type: "string" },
    example: '"credential";q=600;w=60',
  },
  RateLimit: {
    required: true,
    description: 'The budget left, as `"<name>";r=<remaining>;t=<seconds to reset>`',
    schema: { type: "string" },
    example: '"credential";r=597;t=42',
  },
  "Idempotent-Replayed": {
    description: "`true` when this answer replays the first answer to the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
    example: "true",
  },
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "string" }, example: "5" },
  ETag: {
    description:
      "The representation's entity-tag, for If-None-Match (304 when unchanged) and, on a single resource, If-Match on its updates. Strong (a hash of the bytes; a single order's, of its version: its updatedAt and the customer it shows), except the order list's first page: weak, from its orders' version stamps",
    schema: { type: "string" },
    example: '"q7Xw3mZs1YVJ0cGk2b9Tn4RaLh8EoUfD"',
  },
  Location: {
    description: "The created resource's URL",
    schema: { type: "string" },
    example: `/api/vendor/orders/${exampleIds.order}`,
  },
  "WWW-Authenticate": {
    required: true,
    description:
      "The Bearer challenge (RFC 6750): why the credential was refused and, for 403, the scope needed",
    schema: { type: "string" },
    example: 'Bearer realm="vendor-api", error="insufficient_scope", scope="orders:write"',
  },
};

function successHeaders(path: string, method: string, status: string): Json {
  const out: Json = { "X-Request-Id": headerRef("X-Request-Id") };
  if (path.startsWith("/api/vendor/") || path.startsWith("/api/public/")) {
    for (const h of [
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
      "RateLimit",
    ])
      out[h] = headerRef(h);
  }
  if (method === "post" && path.startsWith("/api/vendor/"))
    out["Idempotent-Replayed"] = headerRef("Idempotent-Replayed");
  if (status === "201" && path.startsWith("/api/vendor/")) out.Location = headerRef("Location");
  if (method === "get" && status === "200" && path.startsWith("/api/vendor/")) out.ETag = headerRef("ETag");
  // Every 2xx answer about one order, customer, appointment or webhook names its version
  // (CONTRACT 12, Conditional writes).
  if (
    /^\/api\/vendor\/(orders|customers|appointments|webhooks)(\/\{id\}(\/status|\/rotate-secret)?)?$/.test(
      path,
    ) &&
    method !== "get"
  ) {
    if (status === "201" || path.includes("{id}")) out.ETag = headerRef("ETag");
  }
  return out;
}

// ---------------------------------------------------------------- OAuth form bodies

const formBodies: Record<string, Json> = {
  uploadOrderPhoto: {
    required: true,
    description:
      "multipart/form-data with one part named `file`: the photo, at most 15 MB (JPEG, PNG, WebP, HEIF, AVIF, GIF or TIFF, recognised from its bytes; the part's file name and type are not trusted).",
    content: {
      "multipart/form-data": {
        schema: {
          type: "object",
          required: ["file"],
          properties: { file: { type: "string", format: "binary", description: "The photo" } },
        },
        encoding: { file: { contentType: "image/*" } },
      },
    },
  },
  oauthToken: {
    required: true,
    description:
      "Form-encoded (RFC 6749 4.1.3 and 6). The client authenticates with HTTP Basic or client_id and client_secret here.",
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["grant_type"],
          properties: {
            grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
            code: { type: "string", description: "authorization_code: the code from the redirect" },
            redirect_uri: {
              type: "string",
              description: "authorization_code: the same redirect_uri as in the authorization request",
            },
            code_verifier: {
              type: "string",
              description: "authorization_code: the PKCE verifier (43-128 characters)",
            },
            refresh_token: {
              type: "string",
              description: "refresh_token: the current refresh token (vrt_…)",
            },
            scope: {
              type: "string",
              description: "refresh_token: optionally a narrower, space-separated set of scopes",
            },
            client_id: { type: "string" },
            client_secret: { type: "string" },
          },
        },
        example: {
          grant_type: "authorization_code",
          code: "vac_Q2x5b3J0aGVyZWZvcmVpdGlzdGhlY29kZQ",
          redirect_uri: "https://pos.bellabridal.example/oauth/callback",
          code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
          client_id: "app_5f2c8e1a9b3d7f0e4c6a",
          client_secret: "vcs_7Hk2pQ9rT4wX1zB6nM3vC8yL0aS5dF",
        },
      },
    },
  },
  oauthRevoke: {
    required: true,
    description: "Form-encoded (RFC 7009 2.1). The client authenticates as at the token endpoint.",
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["token"],
          properties: {
            token: { type: "string", description: "An access token (vat_…) or refresh token (vrt_…)" },
            token_type_hint: { type: "string", enum: ["access_token", "refresh_token"] },
            client_id: { type: "string" },
            client_secret: { type: "string" },
          },
        },
        example: {
          token: "vrt_8Jd3kS9fL2mQ7wX4",
          token_type_hint: "refresh_token",
          client_id: "app_5f2c8e1a9b3d7f0e4c6a",
          client_secret: "vcs_7Hk2pQ9rT4wX1zB6nM3vC8yL0aS5dF",
        },
      },
    },
  },
};

/** Answers whose shape the route cannot state in its own schema (HTML pages, RFC 8414 metadata). */
const html = (description: string) => ({
  description,
  content: {
    "text/html": { schema: { type: "string" }, example: "<!doctype html><title>Authorize</title>" },
  },
});
const responseOverrides: Record<string, Json> = {
  authorize: {
    "200": html("The consent page, where the signed-in vendor approves or denies the application"),
    "400": html(
      "An error page: unknown client, or a redirect URI that is not registered (no redirect is safe)",
    ),
  },
  oauthMetadata: {
    "200": {
      description: "Authorization server metadata (RFC 8414)",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["issuer", "authorization_endpoint", "token_endpoint"],
            properties: {
              issuer: { type: "string" },
              authorization_endpoint: { type: "string" },
              token_endpoint: { type: "string" },
              revocation_endpoint: { type: "string" },
              scopes_supported: { type: "array", items: { type: "string" } },
              response_types_supported: { type: "array", items: { type: "string" } },
              grant_types_supported: { type: "array", items: { type: "string" } },
              code_challenge_methods_supported: { type: "array", items: { type: "string" } },
            },
            additionalProperties: true,
          },
          example: {
            issuer: "https://api.vendor-api.example",
            authorization_endpoint: "https://api.vendor-api.example/api/oauth/authorize",
            token_endpoint: "https://api.vendor-api.example/api/oauth/token",
            revocation_endpoint: "https://api.vendor-api.example/api/oauth/revoke",
            scopes_supported: ["orders:read", "orders:write"],
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
          },
        },
      },
    },
  },
};

const oauthError = (error: string, description: string) => ({ error, error_description: description });

const oauthErrorSchema: Json = {
  description: "OAuth error (RFC 6749 5.2); not problem+json",
  type: "object",
  required: ["error", "error_description"],
  properties: {
    error: { type: "string", description: "RFC 6749 5.2 error code" },
    error_description: { type: "string", description: "Human-readable explanation" },
  },
};

/**
 * What every OAuth protocol endpoint can answer besides its own errors (oauth.error-handler.ts,
 * request-guards.ts): its per-address budget spent (429), the database unreachable or the disk
 * full (503), a bug (500). RFC 6749 5.2 JSON, except on the authorization endpoint, a browser
 * page, which answers HTML pages.
 */
function oauthProtocolErrors(operationId: string): Json {
  const page = operationId === "authorize";
  const answer = (description: string, error: string, text: string, retry: boolean): Json => ({
    description,
    headers: {
      "X-Request-Id": headerRef("X-Request-Id"),
      ...(retry ? { "Retry-After": headerRef("Retry-After") } : {}),
    },
    content: page
      ? { "text/html": { schema: { type: "string" }, example: `<!doctype html><title>${text}</title>` } }
      : { "application/json": { schema: oauthErrorSchema, example: oauthError(error, text) } },
  });
  return {
    "429": answer(
      "Too many requests from this client address (`temporarily_unavailable`); retry after Retry-After seconds",
      "temporarily_unavailable",
      "Too many requests from this address; retry later",
      true,
    ),
    "500": answer(
      "A bug (`server_error`); logged with the request id",
      "server_error",
      "Internal server error",
      false,
    ),
    "503": answer(
      "The service is temporarily unavailable (`temporarily_unavailable`); retry after Retry-After seconds",
      "temporarily_unavailable",
      "The service is temporarily unavailable",
      true,
    ),
  };
}

/** Examples of bodies that are not named schemas, by operation and status ("req": the request). */
const operationExamples: Record<string, unknown> = {
  "getHealth 200": { status: "ok" },
  "getReady 200": { status: "ok" },
  "getReady 503": problemExample("unavailable"),
  "testWebhook req": {},
  "testWebhook 202": { eventId: exampleIds.event },
  "redeliverWebhookDelivery req": {},
  "redeliverWebhookDelivery 202": { deliveryId: exampleIds.delivery, eventId: exampleIds.event },
  "oauthToken 200": {
    access_token: "vat_3Yq8Zr1Lm6Tx0Wb4Nc7Vd2Kp9Hs5Gf",
    token_type: "Bearer",
    expires_in: 3600,
    refresh_token: "vrt_8Jd3kS9fL2mQ7wX4aB6cE1gH5iK0nP",
    scope: "orders:read orders:write appointments:read",
  },
  "oauthToken 400": oauthError("invalid_grant", "The authorization code is invalid, expired or already used"),
  "oauthToken 401": oauthError("invalid_client", "Client authentication failed"),
  "oauthRevoke 400": oauthError("invalid_request", "token is required"),
  "oauthRevoke 401": oauthError("invalid_client", "Client authentication failed"),
};

// ---------------------------------------------------------------- workflows

function workflowTable(
  transitions: Readonly<Record<string, readonly string[]>>,
  note: (from: string, to: string) => string = () => "",
): string {
  const rows = Object.entries(transitions).map(
    ([from, to]) =>
      `| ${from} | ${to.length ? to.map((t) => `${t}${note(from, t)}`).join(", ") : "nothing: it is final"} |`,
  );
  return ["| From | Can move to |", "| --- | --- |", ...rows].join("\n");
}

export const orderWorkflowTable = workflowTable(orderTransitions, (from, to) =>
  from === "PICKED_UP" && to === "RETURNED" ? " (rentals only)" : "",
);
export const appointmentWorkflowTable = workflowTable(appointmentTransitions);

const tagDescriptions: Record<string, string> = {
  Orders:
    "Orders and their status workflow. A new order is ORDERED. A move to the status the order already has is always allowed: it adds a message or photo to the history without changing the status. Every other move must be one of these:\n\n" +
    orderWorkflowTable,
  Appointments:
    "Appointments with customers. A new appointment is PROPOSED; its status moves as follows:\n\n" +
    appointmentWorkflowTable +
    "\n\nOnly a PROPOSED or CANCELLED appointment can be deleted.",
};

// ---------------------------------------------------------------- the whole document

const methods = ["get", "put", "post", "delete", "patch", "head", "options"];

/**
 * `declaredErrors`: per operation (`<method> <path>`, as in the document), the error codes its
 * route declares it can answer beyond those every operation of its kind can (`config.errors`).
 */
export function finishDocument(doc: Json, declaredErrors: ReadonlyMap<string, readonly ErrorCode[]>): Json {
  const components: Json = {};
  const out: Json = { ...doc, paths: {}, webhooks: {} };
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const finished: Json = {};
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!methods.includes(method)) {
        finished[method] = operation;
        continue;
      }
      const declared = declaredErrors.get(`${method} ${path}`) ?? [];
      finished[method] = finishOperation(path, method, hoist(operation, components) as Json, declared);
    }
    out.paths[path] = finished;
  }
  for (const [name, item] of Object.entries<Json>(doc.webhooks ?? {})) {
    const hoisted = hoist(item, components) as Json;
    const media = hoisted.post?.requestBody?.content?.["application/json"];
    if (media)
      media.example = {
        id: exampleIds.event,
        event: name,
        data: eventDataExamples[name],
        timestamp: exampleIds.moved,
      };
    out.webhooks[name] = hoisted;
  }
  components.Event = eventUnion(components);
  components.Problem = Problem;
  out.components = {
    ...doc.components,
    schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    headers,
    examples: Object.fromEntries(
      errorCodes.map((c) => [c, { summary: errorCatalog[c].title, value: problemExample(c) }]),
    ),
  };
  out.tags = (doc.tags ?? []).map((tag: Json) => ({
    ...tag,
    description: tagDescriptions[tag.name] ?? tag.description,
  }));
  return out;
}

function finishOperation(
  path: string,
  method: string,
  operation: Json,
  declared: readonly ErrorCode[],
): Json {
  const op: Json = { ...operation };
  const operationId =
    op.operationId ??
    `${method}${path.replace(/[^A-Za-z]+(.)?/g, (_m, c?: string) => (c ? c.toUpperCase() : ""))}`;
  op.operationId = operationId;
  const authenticated = Array.isArray(op.security) && op.security.length > 0;
  if (!authenticated) op.security = [];
  if (formBodies[operationId]) op.requestBody = formBodies[operationId];
  const body = op.requestBody?.content?.["application/json"];
  if (body) {
    const name = body.schema?.$ref?.split("/").pop();
    if (name && schemaExamples[name] !== undefined) body.example = schemaExamples[name];
    else if (operationExamples[`${operationId} req`] !== undefined)
      body.example = operationExamples[`${operationId} req`];
    // The same body as a plain HTML form post (the public inquiry form), shown with the same example.
    const form = op.requestBody?.content?.["application/x-www-form-urlencoded"];
    if (form && form.example === undefined && body.example !== undefined) form.example = body.example;
  }
  const facts: OperationFacts = {
    path,
    method,
    operationId,
    authenticated,
    hasBody: Boolean(op.requestBody),
    declared,
  };
  const isOAuthProtocol = path.startsWith("/api/oauth/") || path.startsWith("/.well-known/");
  const responses: Json = {};
  for (const [status, original] of Object.entries<Json>(op.responses ?? {})) {
    const response = responseOverrides[operationId]?.[status] ?? original;
    if (Number(status) >= 400 && !isOAuthProtocol && path.startsWith("/api/")) continue;
    const finished: Json = { ...response };
    if (Number(status) < 400)
      finished.headers = { ...successHeaders(path, method, status), ...response.headers };
    const media = finished.content?.["application/json"];
    const name = media?.schema?.$ref?.split("/").pop();
    if (media && name && schemaExamples[name] !== undefined) media.example = schemaExamples[name];
    else if (media && operationExamples[`${operationId} ${status}`] !== undefined)
      media.example = operationExamples[`${operationId} ${status}`];
    responses[status] = finished;
  }
  if (method === "get" && responses["200"] && path.startsWith("/api/vendor/")) {
    responses["304"] = {
      description: "Not Modified: If-None-Match names the current ETag (no body)",
      headers: { "X-Request-Id": headerRef("X-Request-Id"), ETag: headerRef("ETag") },
    };
  }
  if (path.startsWith("/api/") && !isOAuthProtocol) {
    const common: Json = { "X-Request-Id": headerRef("X-Request-Id") };
    Object.assign(responses, errorResponses(facts, common));
  }
  if (isOAuthProtocol) {
    for (const [status, response] of Object.entries(oauthProtocolErrors(operationId)))
      responses[status] ??= response;
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return op;
}

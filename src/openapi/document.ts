// Finishes the OpenAPI document @fastify/swagger generates from the route schemas: named component
// schemas referenced everywhere, problem+json errors listing the codes each operation declares,
// response headers, OAuth form bodies, `security: []` on public operations, and a bridal-shop
// example on every request and response. Routes stay the single source of shapes; this module
// adds what a route schema cannot say, and imports no module: a new resource edits nothing here.
import type { ErrorCode } from "../errors.ts";
import type { ApiTag } from "../http/api-tags.ts";
import { Problem } from "../http/common-schemas.ts";
import { answersProblems } from "../http/route-errors.ts";
import { componentExample, hoist } from "./components.ts";
import { eventDataExamples, exampleIds } from "./examples.ts";
import { headers, successHeaders } from "./headers.ts";
import { headerRef, type Json } from "./json.ts";
import { errorResponses, problemExampleComponents } from "./problems.ts";
import { formBodies, oauthProtocolErrors, operationExamples, responseOverrides } from "./protocol-answers.ts";

const methods = ["get", "put", "post", "delete", "patch", "head", "options"];

/** What the routes declared beside their schemas, for the document to carry. */
export interface RouteDeclarations {
  /** Per operation (`<method> <path>`, as in the document), the error codes its route can answer (src/http/route-errors.ts). */
  errorCodes: ReadonlyMap<string, readonly ErrorCode[]>;
  /** Each tag with its description (src/http/api-tags.ts). */
  tags: ReadonlyMap<string, ApiTag>;
}

/** `moreComponents` adds schemas no route names (the events' union). */
export function finishDocument(
  doc: Json,
  { errorCodes, tags }: RouteDeclarations,
  moreComponents: (components: Json) => Json,
): Json {
  const components: Json = {};
  const out: Json = { ...doc, paths: {}, webhooks: {} };
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const finished: Json = {};
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!methods.includes(method)) {
        finished[method] = operation;
        continue;
      }
      const codes = errorCodes.get(`${method} ${path}`) ?? [];
      finished[method] = finishOperation(path, method, hoist(operation, components) as Json, codes);
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
  Object.assign(components, moreComponents(components));
  components.Problem = Problem;
  out.components = {
    ...doc.components,
    schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    headers,
    examples: problemExampleComponents(),
  };
  out.tags = documentTags(out.paths, tags);
  return out;
}

/**
 * The tags the operations use, in the order they first appear (those declared `last` after the
 * rest), each with its declared description.
 */
function documentTags(paths: Json, declared: ReadonlyMap<string, ApiTag>): Json[] {
  const used = new Set<string>();
  for (const item of Object.values<Json>(paths))
    for (const operation of Object.values<Json>(item)) for (const tag of operation.tags ?? []) used.add(tag);
  const tags = [...used].map((name) => {
    const tag = declared.get(name);
    if (!tag) throw new Error(`API tag ${name} is used but never declared (declareApiTag)`);
    return { name, ...tag };
  });
  return [...tags.filter((t) => !t.last), ...tags.filter((t) => t.last)].map(({ name, description }) => ({
    name,
    description,
  }));
}

function finishOperation(path: string, method: string, operation: Json, codes: readonly ErrorCode[]): Json {
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
    if (name && componentExample(name) !== undefined) body.example = componentExample(name);
    else if (operationExamples[`${operationId} req`] !== undefined)
      body.example = operationExamples[`${operationId} req`];
    // The same body as a plain HTML form post (the public inquiry form), shown with the same example.
    const form = op.requestBody?.content?.["application/x-www-form-urlencoded"];
    if (form && form.example === undefined && body.example !== undefined) form.example = body.example;
  }
  const isOAuthProtocol = path.startsWith("/api/oauth/") || path.startsWith("/.well-known/");
  // The problem answers of an API operation are rendered from its codes, as its route's response
  // schemas are given from them (src/http/route-errors.ts); the route's own are skipped.
  const problems = answersProblems(path);
  const responses: Json = {};
  for (const [status, original] of Object.entries<Json>(op.responses ?? {})) {
    const response = responseOverrides[operationId]?.[status] ?? original;
    if (Number(status) >= 400 && problems) continue;
    const finished: Json = { ...response };
    if (Number(status) < 400)
      finished.headers = { ...successHeaders(path, method, status), ...response.headers };
    const media = finished.content?.["application/json"];
    const name = media?.schema?.$ref?.split("/").pop();
    if (media && name && componentExample(name) !== undefined) media.example = componentExample(name);
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
  if (problems) {
    const common: Json = { "X-Request-Id": headerRef("X-Request-Id") };
    Object.assign(responses, errorResponses(codes, common));
  }
  if (isOAuthProtocol) {
    for (const [status, response] of Object.entries(oauthProtocolErrors(operationId)))
      responses[status] ??= response;
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return op;
}

// The fuzzer's view of the service: every operation of its own /openapi.json, with local $refs
// (#/components/...) resolved, so the fuzzer follows the document whatever its layout.

export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  /** The document's path template, e.g. /api/vendor/customers/{id}. */
  path: string;
  parameters: Parameter[];
  body?: { contentType: string; schema: Schema; required: boolean };
  /** Response schema (if any) per status code, for 2xx validation. */
  responses: Record<string, Schema | undefined>;
  /** Whether credentials are expected (security other than `[]`). */
  secured: boolean;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Inlines every local `$ref` (JSON pointer into the document); a cycle is cut at its second visit. */
export function resolveRefs(doc: Schema, node: unknown, seen: readonly string[] = []): any {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(doc, n, seen));
  if (node === null || typeof node !== "object") return node;
  const obj = node as Schema;
  if (typeof obj.$ref === "string") {
    const ref = obj.$ref;
    if (!ref.startsWith("#/")) throw new Error(`fuzzer: only local $refs are supported, got ${ref}`);
    if (seen.includes(ref)) return {};
    const target = ref
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<any>((at, key) => at?.[key], doc);
    if (target === undefined) throw new Error(`fuzzer: unresolvable $ref ${ref}`);
    const { $ref: _, ...siblings } = obj;
    return { ...resolveRefs(doc, target, [...seen, ref]), ...resolveRefs(doc, siblings, seen) };
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(obj)) out[k] = resolveRefs(doc, v, seen);
  return out;
}

export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    const resolvedItem = resolveRefs(doc, item);
    for (const method of METHODS) {
      const op = resolvedItem[method];
      if (!op) continue;
      const parameters: Parameter[] = [...(resolvedItem.parameters ?? []), ...(op.parameters ?? [])].map(
        (p: Schema) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: p.schema ?? {} }),
      );
      let body: Operation["body"];
      if (op.requestBody?.content) {
        const [contentType, media] = Object.entries<Schema>(op.requestBody.content)[0] ?? [];
        if (contentType) {
          body = { contentType, schema: media?.schema ?? {}, required: op.requestBody.required !== false };
        }
      }
      const responses: Record<string, Schema | undefined> = {};
      for (const [status, response] of Object.entries<Schema>(op.responses ?? {})) {
        const content = response.content ?? {};
        const media = content["application/json"] ?? Object.values<Schema>(content)[0];
        responses[status] = media?.schema;
      }
      const security = op.security ?? doc.security;
      ops.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        ...(body ? { body } : {}),
        responses,
        secured: Array.isArray(security) && security.length > 0,
      });
    }
  }
  return ops;
}

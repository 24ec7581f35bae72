// Checks an answer against the OpenAPI document the service serves: the operation documents the
// status, the body matches the media type's schema (JSON Schema 2020-12, $refs resolved in the
// document) and every required header is there with a value of its schema.
import { Ajv2020 } from "ajv/dist/2020.js";
import * as ajvFormats from "ajv-formats";

type Json = Record<string, any>;
const addFormats = ((ajvFormats as any).default ?? ajvFormats) as (ajv: Ajv2020) => Ajv2020;

export interface Answer {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

export interface Conformance {
  /** Every way the answer departs from the document; empty when it conforms. */
  check(answer: Answer): string[];
  /** Operations (METHOD path) that some checked answer belonged to. */
  seen: Set<string>;
}

export function openApiConformance(doc: Json): Conformance {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, validateSchema: false }));
  ajv.addSchema({ $id: "openapi.json", components: doc.components } as never);
  const compiled = new Map<unknown, ReturnType<Ajv2020["compile"]>>();
  const validator = (schema: Json) => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')),
      );
      compiled.set(schema, v);
    }
    return v;
  };
  const deref = (node: Json): Json => {
    let n = node;
    while (n?.$ref) {
      const parts = String(n.$ref).replace(/^#\//, "").split("/");
      n = parts.reduce((acc: Json, p) => acc?.[p], doc);
    }
    return n;
  };
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    regex: new RegExp(`^${path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    params: (path.match(/\{/g) ?? []).length,
  }));
  const seen = new Set<string>();

  return {
    seen,
    check({ method, url, status, headers, text }) {
      const path = new URL(url, "http://x").pathname;
      const match = templates.filter((t) => t.regex.test(path)).sort((a, b) => a.params - b.params)[0];
      const where = `${method} ${path} ${status}`;
      if (!match) return [];
      const operation = doc.paths[match.path][method.toLowerCase()];
      if (!operation) return [];
      seen.add(`${method.toUpperCase()} ${match.path}`);
      const responses = operation.responses ?? {};
      const response = deref(
        responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default,
      );
      if (!response)
        return [`${where}: status not documented (documented: ${Object.keys(responses).join(", ")})`];
      const problems: string[] = [];
      for (const [name, h] of Object.entries<Json>(response.headers ?? {})) {
        const header = deref(h);
        const value = headers.get(name);
        if (value === null) {
          if (header.required) problems.push(`${where}: required header ${name} missing`);
          continue;
        }
        const schema = header.schema ?? {};
        const typed = schema.type === "integer" ? Number(value) : value;
        const v = validator(schema);
        if (!v(typed)) problems.push(`${where}: header ${name}=${value}: ${ajv.errorsText(v.errors)}`);
      }
      const content = response.content;
      if (!content) {
        if (text !== "") problems.push(`${where}: a body where the document declares none`);
        return problems;
      }
      const type = (headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
      const media = content[type];
      if (!media)
        return [
          ...problems,
          `${where}: content type ${type} not documented (${Object.keys(content).join(", ")})`,
        ];
      if (!media.schema || !/json/.test(type)) return problems;
      const v = validator(media.schema);
      if (!v(JSON.parse(text)))
        problems.push(`${where}: body ${ajv.errorsText(v.errors)}: ${text.slice(0, 300)}`);
      return problems;
    },
  };
}

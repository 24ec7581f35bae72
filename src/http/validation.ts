// Two Ajv instances: bodies are validated strictly (no type coercion, unknown fields refused, so
// no body can write id, vendorId, status or timestamps), while query strings and path params,
// which arrive as text, are coerced to the schema's types.
import { Ajv, type ErrorObject } from "ajv";
import type { FormatsPlugin } from "ajv-formats";
import * as ajvFormats from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import type { FieldError } from "../errors.ts";
import { DISPLAY_NAME_PATTERN, DISPLAY_NAME_RULE } from "../lib/display-name.ts";
import { isEmailAddress } from "../lib/email-address.ts";
import { DATE_RULE, DATE_TIME_RULE, parseDate, parseDateTime } from "../lib/instants.ts";
import { compiledBySchemaText } from "./compiled-by-schema-text.ts";

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default ??
  ajvFormats) as unknown as FormatsPlugin;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    // "array" also wraps a lone query value for an array parameter (?status=ORDERED is [ORDERED]).
    coerceTypes: coerce ? "array" : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv, { mode: "full" });
  useOwnFormats(ajv);
  return ajv;
}

/**
 * The formats "date" and "date-time" are the service's own parser (src/lib/instants.ts), so the
 * schema accepts exactly what the services and the database can use: no date the schema lets
 * through can turn into a 500 further down.
 */
function useOwnFormats(ajv: Ajv): void {
  ajv.addFormat("date", { type: "string", validate: (s: string) => parseDate(s) !== undefined });
  ajv.addFormat("date-time", { type: "string", validate: (s: string) => parseDateTime(s) !== undefined });
  // The one e-mail test (src/lib/email-address.ts) that members' and shops' addresses pass too.
  ajv.addFormat("email", { type: "string", validate: isEmailAddress });
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * Ajv reuses a compiled function only for the same schema object, and Fastify hands it new ones:
 * one app compiled ~130 validators of which ~30 differ (most routes take no query, the same
 * Idempotency-Key header, the same :id), at every process start and in every test app. Fastify
 * reads a validator's `errors` right after the synchronous call, so routes sharing one never see
 * each other's. One cache per Ajv: a body is never validated by a coercing validator.
 */
const compiled = { body: compiledBySchemaText<Validate>(), text: compiledBySchemaText<Validate>() };

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const [ajv, cache] = httpPart === "body" ? [bodyAjv, compiled.body] : [textAjv, compiled.text];
  return cache(schema as object, () => compiledOnFirstUse(() => ajv.compile(schema as object) as Validate));
};

/**
 * A validator that Ajv compiles at its first call, not when Fastify registers the route: a start
 * compiled ~60 distinct validators, ~1.2 s of its CPU, for routes most processes never see
 * (the dashboard's, the CLI's, OAuth's). After the first call it is Ajv's own function, and its
 * `errors` are copied onto this one, where Fastify reads them right after the call.
 */
function compiledOnFirstUse(compile: () => Validate): Validate {
  let compiledFn: Validate | undefined;
  const validate = ((...args: Parameters<Validate>) => {
    compiledFn ??= compile();
    const result = compiledFn(...args);
    validate.errors = compiledFn.errors;
    return result;
  }) as Validate;
  return validate;
}

/** Ajv errors as CONTRACT 2's `errors[]`: a field path and a sentence about it. */
export function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const base = e.instancePath
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .join(".");
    let field = base;
    let message = e.message ?? "is invalid";
    const params = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case "required":
        field = join(base, String(params.missingProperty));
        message = "is required";
        break;
      case "additionalProperties":
        field = join(base, String(params.additionalProperty));
        message = "is not an accepted field";
        break;
      case "enum":
        message = `must be one of: ${(params.allowedValues as unknown[]).join(", ")}`;
        break;
      case "format":
        message = describeFormat(String(params.format));
        break;
      case "pattern":
        if (params.pattern === DISPLAY_NAME_PATTERN) message = DISPLAY_NAME_RULE;
        break;
    }
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field || "(body)", message });
  }
  return out;
}

function join(base: string, leaf: string): string {
  return base ? `${base}.${leaf}` : leaf;
}

function describeFormat(format: string): string {
  switch (format) {
    case "date-time":
      return DATE_TIME_RULE;
    case "date":
      return DATE_RULE;
    case "email":
      return "must be a valid e-mail address";
    case "uri":
      return "must be a valid absolute URL";
    default:
      return `must be a valid ${format}`;
  }
}

// Two Ajv instances: bodies are validated strictly (no type coercion, unknown fields refused, so
// no body can write id, vendorId, status or timestamps), while query strings and path params,
// which arrive as text, are coerced to the schema's types.
import { Ajv, type ErrorObject } from "ajv";
import type { FormatsPlugin } from "ajv-formats";
import * as ajvFormats from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import type { FieldError } from "../errors.ts";

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default ??
  ajvFormats) as unknown as FormatsPlugin;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv, { mode: "full" });
  refuseYearZero(ajv);
  return ajv;
}

/**
 * ISO 8601 has a year 0000 (1 BC); PostgreSQL's date and timestamptz refuse it as text, which
 * would turn a schema-valid "0000-01-01" into a 500. Both formats refuse it up front instead.
 */
function refuseYearZero(ajv: Ajv): void {
  for (const name of ["date", "date-time"]) {
    const def = ajv.formats[name] as unknown;
    const base =
      typeof def === "function"
        ? (def as (s: string) => boolean)
        : (def as { validate: (s: string) => boolean }).validate;
    ajv.addFormat(name, { type: "string", validate: (s: string) => !s.startsWith("0000") && base(s) });
  }
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

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
        message = `must be a valid ${describeFormat(String(params.format))}`;
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
      return "ISO 8601 date-time with a time zone offset or Z";
    case "date":
      return "date (YYYY-MM-DD)";
    case "email":
      return "e-mail address";
    case "uri":
      return "absolute URL";
    default:
      return format;
  }
}

// What an operator asked the CLI to do, as plain data. Parsing (program.ts, commander) produces
// one; it is checked here against its TypeBox schema before any database opens, as every other
// input is (the API's bodies, the dashboard's forms: the same Ajv, strict), then run in this
// process or, when a running server holds the PGlite directory, sent to that server over its
// control socket (control-socket.ts), which checks it again.
import { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
import type { ErrorObject } from "ajv";
import { allScopes, type Scope } from "../auth/scopes.ts";
import { AppError, type FieldError } from "../errors.ts";
import { toFieldErrors, validatorCompiler } from "../http/validation.ts";
import { languages } from "../i18n/languages.ts";
import { redirectUriProblem } from "../modules/applications/redirect-uri.ts";

// Each field names the option (or argument) it comes from, `flag`, and says its rule in one
// sentence, `rule`: an error names the option and the rule ("--name must be 1-100 characters").
const text = (max: number, flag: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: "\\S", flag, rule: `must be 1-${max} characters` });
const Vendor = text(320, "--vendor");
const Name = text(100, "--name");
const Id = (argument: string) => text(64, argument);
const Language = Type.Optional(
  Type.String({ enum: [...languages], flag: "--language", rule: `must be one of ${languages.join(", ")}` }),
);
const TimeZone = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 64,
    flag: "--time-zone",
    rule: "must be an IANA time zone such as Europe/Lisbon",
  }),
);

const command = <C extends string, P extends Record<string, TSchema>>(name: C, properties: P) =>
  Type.Object({ command: Type.Literal(name), ...properties }, { additionalProperties: false });

/** Every request the CLI runs, by command: the one source of their checks and their types. */
export const requestSchemas = {
  migrate: command("migrate", {}),
  "vendor create": command("vendor create", {
    name: Name,
    email: Type.String({
      maxLength: 320,
      // The account rule of use-cases/vendor-accounts.service.ts (createVendor), not Ajv's stricter "email" format.
      pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$",
      flag: "--email",
      rule: "must be a valid e-mail address",
    }),
    password: Type.String({
      minLength: 10,
      maxLength: 1024,
      flag: "--password",
      rule: "must be 10-1024 characters",
    }),
    language: Language,
    timeZone: TimeZone,
  }),
  "vendor update": command("vendor update", { vendor: Vendor, language: Language, timeZone: TimeZone }),
  "vendor list": command("vendor list", {}),
  "vendor reset-password": command("vendor reset-password", { vendor: Vendor }),
  "api-key create": command("api-key create", {
    vendor: Vendor,
    name: Name,
    scopes: Type.Array(
      Type.Unsafe<Scope>(
        Type.String({ enum: allScopes, flag: "--scope", rule: `is not a scope (${allScopes.join(", ")})` }),
      ),
      { flag: "--scope", rule: "must be a list of scopes" },
    ),
    test: Type.Optional(Type.Boolean({ flag: "--test", rule: "must be true or false" })),
  }),
  "api-key list": command("api-key list", { vendor: Vendor }),
  "api-key revoke": command("api-key revoke", { vendor: Vendor, id: Id("<key-id>") }),
  "app create": command("app create", {
    vendor: Vendor,
    name: Name,
    redirectUris: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        flag: "--redirect-uri",
        rule: "must be 1-2048 characters",
      }),
      { minItems: 1, flag: "--redirect-uri", rule: "is required" },
    ),
    public: Type.Optional(Type.Boolean({ flag: "--public", rule: "must be true or false" })),
  }),
  "app list": command("app list", { vendor: Vendor }),
  "app delete": command("app delete", { vendor: Vendor, id: Id("<app-id>") }),
  "webhook list": command("webhook list", { vendor: Vendor }),
} satisfies Record<string, TObject>;

type Schemas = typeof requestSchemas;
export type CliRequest = { [C in keyof Schemas]: Static<Schemas[C]> }[keyof Schemas];

export const commandNames = Object.keys(requestSchemas) as ReadonlyArray<CliRequest["command"]>;

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
const checks = new Map<string, Check>();
function checkOf(name: keyof Schemas): Check {
  let check = checks.get(name);
  if (!check) {
    const schema = requestSchemas[name];
    check = validatorCompiler({ schema, httpPart: "body", method: "POST", url: "" }) as unknown as Check;
    checks.set(name, check);
  }
  return check;
}

/** The schema at an Ajv instance path ("/scopes/1" is the items of `scopes`), if any. */
function schemaAt(schema: TSchema, path: string): TSchema | undefined {
  let at: TSchema | undefined = schema;
  for (const segment of path.split("/").slice(1)) {
    if (at === undefined) return undefined;
    at = /^\d+$/.test(segment) && at.items ? (at.items as TSchema) : at.properties?.[segment];
  }
  return at;
}

/** The value at an Ajv instance path, for naming what was refused. */
function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const segment of path.split("/").slice(1)) at = (at as Record<string, unknown> | undefined)?.[segment];
  return at;
}

interface OptionError {
  error: FieldError;
  /** The sentence an operator reads, starting with the option: "--name must be 1-100 characters". */
  text: string;
}

/** Ajv's errors as the options they concern: `--scope orders:fly is not a scope (…)`. */
function optionErrors(schema: TObject, request: unknown, errors: ErrorObject[]): OptionError[] {
  return errors.flatMap((e) => {
    const required = e.keyword === "required";
    const path = required ? `${e.instancePath}/${String(e.params.missingProperty)}` : e.instancePath;
    const field = schemaAt(schema, path);
    if (typeof field?.flag !== "string" || typeof field.rule !== "string") {
      // Not a field of the command (an unknown key, over the control socket): as the API says it.
      return toFieldErrors([e]).map((error) => ({ error, text: `${error.field} ${error.message}` }));
    }
    const value = /\/\d+$/.test(path) ? String(valueAt(request, path)) : undefined;
    const item = value === undefined ? "" : `${value === "" ? '""' : value} `;
    const message = `${item}${required ? "is required" : field.rule}`;
    return [
      { error: { field: field.flag.replace(/^--|^<|>$/g, ""), message }, text: `${field.flag} ${message}` },
    ];
  });
}

/**
 * The request's schema, and the checks a schema cannot say (a redirect URI's rules, shared with
 * the applications service): run before any database opens, so a typo fails at once (and not
 * after PGlite's seconds of start-up), and on the server for what arrives over the control
 * socket. The services repeat what concerns them: they are the authority; this is the early answer.
 */
export function checkRequest(request: CliRequest): void {
  const name = (request as { command?: unknown } | null)?.command;
  if (typeof name !== "string" || !Object.hasOwn(requestSchemas, name)) {
    throw new AppError("validation_failed", "Unknown command");
  }
  const check = checkOf(name as keyof Schemas);
  const found = check(request)
    ? []
    : optionErrors(requestSchemas[name as keyof Schemas], request, check.errors ?? []);
  if (request.command === "app create" && Array.isArray(request.redirectUris)) {
    for (const uri of request.redirectUris) {
      const problem = typeof uri === "string" ? redirectUriProblem(uri) : undefined;
      const message = `${uri === "" ? '""' : uri} ${problem}`;
      if (problem)
        found.push({ error: { field: "redirect-uri", message }, text: `--redirect-uri ${message}` });
    }
  }
  // One sentence per option and rule, in the schema's order (Ajv may say one thing twice).
  const errors = [...new Map(found.map((f) => [f.text, f])).values()];
  if (errors.length > 0) {
    throw new AppError("validation_failed", errors.map((e) => e.text).join("; "), {
      errors: errors.map((e) => e.error),
    });
  }
}

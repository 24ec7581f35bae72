// Reading plain HTML form posts: every field arrives as text (or as a list when repeated), and an
// empty optional field means "none". Values are checked against the same TypeBox schemas the API
// uses, so the dashboard can never store what the API would refuse.
import type { TSchema } from "@sinclair/typebox";
import type { ErrorObject } from "ajv";
import type { FieldError } from "../errors.ts";
import { toFieldErrors, validatorCompiler } from "../http/validation.ts";

/** A form field as one string ("" when absent or repeated). */
export function formField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
}

/** "" → null, anything else trimmed. */
export function optional(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
const compiled = new WeakMap<TSchema, Check>();

/** Field errors of `value` against a body schema (strict, as the API validates bodies). */
export function formErrors(schema: TSchema, value: unknown): FieldError[] {
  let check = compiled.get(schema);
  if (!check) {
    check = validatorCompiler({ schema, httpPart: "body", method: "POST", url: "" }) as unknown as Check;
    compiled.set(schema, check);
  }
  return check(value) ? [] : toFieldErrors(check.errors ?? []);
}

/** The page-size parameter of dashboard lists (default 25, 1-100); anything else is the default. */
export function pageLimit(raw: unknown, fallback = 25): number {
  const n = typeof raw === "string" && /^\d{1,3}$/.test(raw) ? Number(raw) : fallback;
  return n >= 1 && n <= 100 ? n : fallback;
}

/** A query-string parameter as a string, or undefined. */
export function queryParam(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

// Reading plain HTML form posts, the one way every page does it: every field arrives as text (or
// as a list when repeated), and an empty optional field means "none". A value holding NUL is
// refused as the API refuses it (http/reject-nul.ts): PostgreSQL text cannot store it. Values are
// checked against the same TypeBox schemas the API uses, so the dashboard can never store what
// the API would refuse.
import type { TSchema } from "@sinclair/typebox";
import type { ErrorObject } from "ajv";
import type { FastifyRequest } from "fastify";
import { type FieldError, fieldError } from "../errors.ts";
import { findNul } from "../http/reject-nul.ts";
import { toFieldErrors, validatorCompiler } from "../http/validation.ts";

export type Form = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The posted form. A field holding NUL is refused (validation_failed naming it): a form action
 * shows that as its error flash (in the reader's language, refusal.ts), any other page as a 400
 * page, never a 500. Checking values against a schema in the reader's words: the dashboard's
 * assertFormValidIn.
 */
export function formOf(request: FastifyRequest): Form {
  const form = (request.body ?? {}) as Form;
  const nul = findNul(form);
  if (nul !== undefined) {
    throw fieldError("validation_failed", nul.replace(/\[\d+\]$/, ""), "must not contain the NUL character");
  }
  return form;
}

/** One text field: the first value when repeated (as URLSearchParams.get), "" when absent. */
export function field(form: Form, name: string): string {
  const value = form[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** Every value of a repeated field (checkboxes). */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  return value === undefined ? [] : [value].flat();
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

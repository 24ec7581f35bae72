// Validators are compiled once per schema text per process (src/http/validation.ts): Fastify hands
// the compiler a new object for every route's headers and query, and compiling each again made
// every process start, and every test app, pay for ~130 validators of which ~30 differ. Sharing
// must never cross the two Ajv instances: a body is not coerced, a query string is.
import { describe, expect, it } from "vitest";
import { validatorCompiler } from "../../src/http/validation.ts";

const compile = (schema: object, httpPart: string) =>
  validatorCompiler({ schema, httpPart, method: "GET", url: "/x" });

const limitQuery = () => ({
  type: "object",
  properties: { limit: { type: "integer", minimum: 1 } },
  additionalProperties: false,
});

describe("the validator compiler", () => {
  it("gives two schemas with the same text one compiled validator", () => {
    const first = compile(limitQuery(), "querystring");
    expect(compile(limitQuery(), "querystring")).toBe(first);
    expect(compile(limitQuery(), "params")).toBe(first);
  });

  it("compiles a schema with other text apart", () => {
    const other = { ...limitQuery(), properties: { limit: { type: "integer", minimum: 2 } } };
    expect(compile(other, "querystring")).not.toBe(compile(limitQuery(), "querystring"));
  });

  it("keeps a body's validator apart from a query's: the body is not coerced, the query is", () => {
    const body = compile(limitQuery(), "body");
    const query = compile(limitQuery(), "querystring");
    expect(body).not.toBe(query);
    expect(body({ limit: "5" })).toBe(false);
    expect(body.errors?.[0]?.instancePath).toBe("/limit");
    const input = { limit: "5" };
    expect(query(input)).toBe(true);
    expect(input.limit).toBe(5);
  });

  it("reports each call's own errors on the shared validator", () => {
    const validate = compile(limitQuery(), "querystring");
    expect(validate({ limit: "0" })).toBe(false);
    expect(validate.errors?.[0]?.keyword).toBe("minimum");
    expect(validate({ limit: "3" })).toBe(true);
    expect(validate.errors ?? null).toBeNull();
  });
});

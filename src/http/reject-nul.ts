// PostgreSQL text and jsonb cannot hold U+0000 (the driver fails with SQLSTATE 22021 / 22P05),
// so a NUL anywhere in a body or query string would surface as a 500. Nor can jsonb hold a lone
// UTF-16 surrogate (JSON's "\ud800" escape parses to one; it is not Unicode text and has no
// UTF-8 form). Both are refused up front as validation_failed naming the field (CONTRACT 2: no
// input produces a 500).
import type { FastifyInstance } from "fastify";
import { fieldError } from "../errors.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (or object key) containing U+0000, or undefined. */
export function findNul(value: unknown): string | undefined {
  return findString(value, (s) => s.includes("\u0000"));
}

/** The path of the first string (or object key) holding a lone surrogate, or undefined. */
export function findLoneSurrogate(value: unknown): string | undefined {
  return findString(value, (s) => LONE_SURROGATE.test(s));
}

function findString(value: unknown, bad: (s: string) => boolean): string | undefined {
  // Iterative, so a deeply nested body cannot overflow the stack.
  const stack: Array<[unknown, string]> = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === "string") {
      if (bad(v)) return path || "(body)";
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        const childPath = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
        if (bad(k)) return childPath.replaceAll("\u0000", "\\u0000").replace(LONE_SURROGATE, "\uFFFD");
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** Adds the check to every route of `scope` (before schema validation). */
export function registerRejectNul(scope: FastifyInstance): void {
  scope.addHook("preValidation", (request, _reply, done) => {
    // Path parameters are ids, which services check with isId(): malformed ones are 404 (CONTRACT 1).
    for (const part of [request.query, request.body]) {
      const field = findNul(part);
      if (field !== undefined)
        return done(fieldError("validation_failed", field, "must not contain the NUL character"));
      const unpaired = findLoneSurrogate(part);
      if (unpaired !== undefined)
        return done(
          fieldError("validation_failed", unpaired, "must be Unicode text (it holds an unpaired surrogate)"),
        );
    }
    done();
  });
}

// Rules (RFC 6749 3.3 and 4.1.2.1, spec 4.1, CONTRACT 3):
// - scope is required and names at least one scope (invalid_scope);
// - every scope is one of the service's scopes (invalid_scope names the unknown ones).
import { allScopes, isScope, type Scope } from "../../auth/scopes.ts";
import { InvalidScope } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";
import { parseScope } from "../tokens.ts";

export function checkScope(params: RawParams): Scope[] {
  const scope = param(params, "scope");
  const requested = scope.kind === "one" ? parseScope(scope.value) : [];
  if (requested.length === 0) {
    throw new InvalidScope(`scope is required; known scopes: ${allScopes.join(" ")}`);
  }
  const unknown = requested.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new InvalidScope(`Unknown scope: ${unknown.join(" ")}`);
  return requested as Scope[];
}

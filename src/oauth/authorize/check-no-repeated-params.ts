// Rules (RFC 6749 3.1, CONTRACT 6):
// - no parameter may be given more than once (invalid_request).
import { InvalidRequest } from "../oauth.errors.ts";
import { type RawParams, repeatedNames } from "../params.ts";

export function checkNoRepeatedParams(params: RawParams): void {
  const repeated = repeatedNames(params);
  if (repeated.length > 0)
    throw new InvalidRequest(`Parameters given more than once: ${repeated.join(", ")}`);
}

// Rules (RFC 6749 4.1.1 and 4.1.2.1, spec 4.1):
// - response_type is required (invalid_request when missing);
// - it is exactly "code"; anything else, "token" included (RFC 9700 2.1.2), is
//   unsupported_response_type.
import { InvalidRequest, UnsupportedResponseType } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";

export function checkResponseType(params: RawParams): void {
  const responseType = param(params, "response_type");
  if (responseType.kind !== "one") throw new InvalidRequest("response_type is required");
  if (responseType.value !== "code") {
    throw new UnsupportedResponseType("Only response_type=code is supported");
  }
}

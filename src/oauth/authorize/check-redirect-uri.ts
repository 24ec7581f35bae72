// Rules (spec 5 rule 1, RFC 9700 2.1, RFC 6749 3.1.2.3, CONTRACT 6):
// - redirect_uri is required and given once;
// - it equals one of the application's registered URIs exactly, character for character: no
//   case folding, no default-port or trailing-slash normalisation, no extra query parameters;
// - failing either, the request is answered with an HTML page and never redirected.
import type { ApplicationRow } from "../../modules/applications/applications.service.ts";
import { UntrustedRedirect } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";

export function checkRedirectUri(application: ApplicationRow, params: RawParams): string {
  const redirectUri = param(params, "redirect_uri");
  if (redirectUri.kind === "absent") throw new UntrustedRedirect("The request names no redirect_uri.");
  if (redirectUri.kind === "repeated") throw new UntrustedRedirect("redirect_uri is given more than once.");
  if (!application.redirectUris.includes(redirectUri.value)) {
    throw new UntrustedRedirect("The redirect_uri is not registered for this application.");
  }
  return redirectUri.value;
}

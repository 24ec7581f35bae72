// The authorization request (RFC 6749 4.1.1) as a pipeline of small checks, each in its own file
// with the rules it enforces listed at the top. The first two decide whether the client and
// redirect URI can be trusted; until then an error is shown as a page. After them, every error
// is sent back to the client's redirect URI (RFC 6749 4.1.2.1).
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import type { ApplicationRow } from "../../modules/applications/applications.service.ts";
import { OAuthError } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";
import { checkClient } from "./check-client.ts";
import { checkNoRepeatedParams } from "./check-no-repeated-params.ts";
import { checkPkce } from "./check-pkce.ts";
import { checkRedirectUri } from "./check-redirect-uri.ts";
import { checkResponseType } from "./check-response-type.ts";
import { checkScope } from "./check-scope.ts";

export interface AuthorizationRequest {
  application: ApplicationRow;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string;
}

/** An error to deliver to a trusted redirect URI. */
export class AuthorizationErrorRedirect extends Error {
  constructor(
    readonly redirectUri: string,
    readonly state: string | undefined,
    readonly reason: OAuthError,
  ) {
    super(reason.description);
    this.name = "AuthorizationErrorRedirect";
  }
}

/** The names of the parameters the consent form carries back (they are validated again there). */
export const AUTHORIZATION_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const;

export async function checkAuthorizationRequest(
  ctx: ServiceContext,
  params: RawParams,
): Promise<AuthorizationRequest> {
  const application = await checkClient(ctx, params);
  const redirectUri = checkRedirectUri(application, params);
  const state = param(params, "state");
  const stateValue = state.kind === "one" ? state.value : undefined;
  try {
    checkNoRepeatedParams(params);
    checkResponseType(params);
    const codeChallenge = checkPkce(params);
    const scopes = checkScope(params);
    return { application, redirectUri, state: stateValue, scopes, codeChallenge };
  } catch (err) {
    if (err instanceof OAuthError) throw new AuthorizationErrorRedirect(redirectUri, stateValue, err);
    throw err;
  }
}

/**
 * The redirect URI with response parameters added to its query, keeping any query it was
 * registered with (RFC 6749 3.1.2), and `iss` on success and error alike (RFC 9207 2).
 */
export function redirectWith(
  redirectUri: string,
  issuer: string,
  values: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  url.searchParams.append("iss", issuer);
  return url.toString();
}

// Authorization server metadata (RFC 8414 2), served at /.well-known/oauth-authorization-server.
import { allScopes } from "../auth/scopes.ts";

export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/api/oauth/authorize`,
    token_endpoint: `${issuer}/api/oauth/token`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    scopes_supported: allScopes,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    // RFC 9207 3: every authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

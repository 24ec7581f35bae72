// The OAuth error vocabulary, apart from CONTRACT 2's problem details: the token and revocation
// endpoints answer RFC 6749 5.2 JSON `{ error, error_description }`, and authorization errors
// travel back to the client as redirect parameters (RFC 6749 4.1.2.1). Modelled on
// node-oidc-provider's lib/helpers/errors.js: one class per `error` value.

import { PageError } from "../web/page-error.ts";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "temporarily_unavailable"
  | "server_error";

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super("invalid_request", description);
  }
}

/** 401 (RFC 6749 5.2): the client is unknown or its secret wrong; nothing else is revealed. */
export class InvalidClient extends OAuthError {
  constructor(
    description = "Client authentication failed",
    /** The client tried HTTP Basic, so the answer carries a Basic challenge (RFC 6749 5.2). */
    readonly usedBasic = false,
  ) {
    super("invalid_client", description, 401);
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super("invalid_grant", description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super("unsupported_grant_type", description);
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor(description: string) {
    super("unsupported_response_type", description);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super("invalid_scope", description);
  }
}

/** RFC 6749 4.1.2.1: this client may not ask this vendor (a private application of another shop). */
export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super("unauthorized_client", description);
  }
}

export class AccessDenied extends OAuthError {
  constructor(description = "The vendor denied the request") {
    super("access_denied", description);
  }
}

/**
 * An authorization request whose client or redirect URI cannot be trusted: it must never redirect
 * (RFC 6749 4.1.2.1, RFC 9700 4.11), so it is shown to the vendor as an HTML page instead.
 */
export class UntrustedRedirect extends PageError {
  constructor(description: string) {
    super(400, "Invalid authorization request", description);
    this.name = "UntrustedRedirect";
  }
}

// Authentication and scope checks for /api/vendor routes (CONTRACT 3). A route declares the scope
// it needs in `config.scope`; this hook runs before the body is read, so an unauthenticated
// caller learns nothing about validation, and sets `request.principal` for the handler.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { actorOfPrincipal, runAsActor } from "../auth/actor.ts";
import type { Principal } from "../auth/principal.ts";
import type { Scope } from "../auth/scopes.ts";
import { AppError } from "../errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a credential needs for this route; routes without one are public. */
    scope?: Scope;
    /**
     * For a route whose query names the resource it reads (the sync checksum): the scope that
     * resource needs, from the raw query, instead of `scope` (undefined: `scope` stands). The
     * OpenAPI document lists each of `scopeChoices`.
     */
    scopeFor?: (query: Record<string, unknown>) => Scope | undefined;
    scopeChoices?: readonly Scope[];
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

export interface Authenticators {
  apiKey(key: string): Promise<Principal | undefined>;
  bearer(token: string): Promise<Principal | undefined>;
}

/** Rate limits around authentication (rate-limit.ts `credentialLimits`); either may throw a 429. */
export interface AuthenticationLimits {
  /** After a failed authentication, before its 401 goes out. */
  failed(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** After a credential authenticated, before its scope is checked. */
  authenticated(principal: Principal, reply: FastifyReply): Promise<void>;
}

const REALM = 'Bearer realm="vendor-api"';

export function registerAuthentication(
  app: FastifyInstance,
  authenticators: Authenticators,
  limits: AuthenticationLimits,
): void {
  app.decorateRequest("principal", undefined);
  app.addHook("onRequest", async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    let principal: Principal;
    try {
      principal = await resolvePrincipal(request, authenticators);
    } catch (err) {
      // Only the request's own credential failing counts against its address: a lookup the
      // database could not answer (503) says nothing about the credential, and counting it would
      // turn an outage into 429s for every client behind the address once the database is back.
      if (err instanceof AppError && err.status < 500) await limits.failed(request, reply);
      throw err;
    }
    await limits.authenticated(principal, reply);
    const needed = request.routeOptions.config.scopeFor?.(request.query as Record<string, unknown>) ?? scope;
    if (!principal.scopes.has(needed)) {
      throw new AppError("insufficient_scope", `This request needs the ${needed} scope`, {
        headers: {
          "www-authenticate": `Bearer realm="vendor-api", error="insufficient_scope", scope="${needed}"`,
        },
        requiredScope: needed,
      });
    }
    request.principal = principal;
    // Who made the request, on every later log line of it (ids only, never the credential).
    const credential = principal.credential;
    const bindings = {
      vendorId: principal.vendorId,
      credentialId: credential.kind === "api_key" ? credential.id : credential.grantId,
      credentialKind: credential.kind,
      ...(principal.livemode ? {} : { livemode: false }),
    };
    // The request's own logger (pino's child made for it, shared with its reply) takes the
    // bindings: cheaper than a child of that child on every authenticated request.
    const log = request.log as typeof request.log & { setBindings?: (b: object) => void };
    if (typeof log.setBindings === "function") {
      log.setBindings(bindings);
    } else {
      request.log = reply.log = request.log.child(bindings);
    }
  });
  // The credential is who the activity log names for the request's changes (auth/actor.ts).
  // Callback style, so that the handler runs inside runAsActor's async context.
  app.addHook("preHandler", (request, _reply, done) => {
    if (request.principal) runAsActor(actorOfPrincipal(request.principal), done);
    else done();
  });
}

async function resolvePrincipal(request: FastifyRequest, authenticators: Authenticators): Promise<Principal> {
  const apiKey = request.headers["x-api-key"];
  const authorization = request.headers.authorization;
  if (apiKey !== undefined && authorization !== undefined) {
    throw new AppError("ambiguous_credentials", "Send either X-Api-Key or Authorization, not both");
  }
  if (apiKey === undefined && authorization === undefined) {
    throw new AppError(
      "unauthenticated",
      "Send an API key in X-Api-Key or an OAuth access token as a Bearer token",
      {
        headers: { "www-authenticate": REALM },
      },
    );
  }
  let principal: Principal | undefined;
  if (typeof apiKey === "string") {
    principal = await authenticators.apiKey(apiKey.trim());
  } else if (typeof authorization === "string") {
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
    if (match?.[1]) principal = await authenticators.bearer(match[1]);
  }
  if (!principal) {
    throw new AppError("invalid_credentials", "The credential is unknown, expired or revoked", {
      headers: { "www-authenticate": `${REALM}, error="invalid_token"` },
    });
  }
  return principal;
}

/** The authenticated caller; only for routes that declare a scope. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`route ${request.routeOptions.url} has no scope but reads the principal`);
  return request.principal;
}

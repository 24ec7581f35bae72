// Whether the credential an event stream was opened with still holds (CONTRACT 12: a stream ends
// with its credential within 2 s of its revocation, expiry or loss of scope). A request is
// authenticated once; a stream lives on for hours, so it asks again whenever it is told its
// credential changed (stream-wake-ups.ts), and an access token's end is known in advance.
import type { Principal } from "../../auth/principal.ts";
import { allScopes, isScope, type Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { findLiveKeyScopes } from "../api-keys/api-keys.repository.ts";
import { findLiveAccessTokenById } from "../connections/oauth.repository.ts";
import { eventCatalog, isEventType } from "./catalog.ts";

/** What the credential may still do: its scopes now, and when it ends by itself (tokens). */
export interface CredentialStanding {
  scopes: ReadonlySet<Scope>;
  expiresAt: Date | undefined;
}

/**
 * The credential's standing now, or undefined when it no longer authenticates: a key revoked or
 * deleted (with its shop), an access token revoked, expired or deleted, its grant revoked.
 */
export async function credentialStanding(
  ctx: ServiceContext,
  credential: Principal["credential"],
): Promise<CredentialStanding | undefined> {
  if (credential.kind === "api_key") {
    const key = await findLiveKeyScopes(ctx.db, credential.id);
    if (!key) return undefined;
    const scopes = key.scopes ? (key.scopes.filter(isScope) as Scope[]) : allScopes;
    return { scopes: new Set(scopes), expiresAt: undefined };
  }
  const token = await findLiveAccessTokenById(ctx.db, credential.tokenId, ctx.now());
  if (!token) return undefined;
  return { scopes: new Set(token.scopes.filter(isScope)), expiresAt: token.expiresAt };
}

/**
 * The scopes a stream of these event types relies on: the route's own, and each type's. Losing
 * any of them ends the stream (the client reconnects and gets what it may still read, or 403).
 */
export function scopesStreamNeeds(routeScope: Scope, types: readonly string[]): Scope[] {
  const needed = new Set<Scope>([routeScope]);
  for (const type of types) if (isEventType(type)) needed.add(eventCatalog[type].scope);
  return [...needed];
}

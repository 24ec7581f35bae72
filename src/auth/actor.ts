// Who is making a change, for the activity log (CONTRACT 10, "Members"): a person signed in to the
// dashboard, an API key or an OAuth application acting for the shop, the operator's CLI, or the
// service itself (the worker), or a shop's customer on her own appointment page. Set once per request by the layer that authenticated it (the
// API's authentication hook, the dashboard's session hook, the CLI) and read by services where
// they write, so the entry commits in the change's own transaction and no service signature
// carries it. Like the request's transaction (db/request-transaction.ts), it travels in the
// request's async context.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "./principal.ts";

export type Actor =
  /** A person signed in to the dashboard: the member's id (db/schema/members.ts). */
  | { kind: "person"; id: string }
  /** An integration authenticated with an API key (the key's id). */
  | { kind: "api_key"; id: string }
  /** An OAuth application acting under a shop's grant (its client_id). */
  | { kind: "oauth_app"; id: string }
  /** The operator, with the command-line tool. */
  | { kind: "cli" }
  /** The service itself (a worker, a scheduled job): nobody asked. */
  | { kind: "system" }
  /** A shop's customer, through her own appointment link (the customer's id; never her name). */
  | { kind: "customer"; id: string };

export type ActorKind = Actor["kind"];

export const actorKinds: readonly ActorKind[] = [
  "person",
  "api_key",
  "oauth_app",
  "cli",
  "system",
  "customer",
];

const scope = new AsyncLocalStorage<Actor>();

/** The actor of the current request or command; the service itself when nobody set one. */
export function currentActor(): Actor {
  return scope.getStore() ?? { kind: "system" };
}

/** Runs `fn` (and everything it starts) on behalf of `actor`. */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  return scope.run(actor, fn);
}

/** The actor an API credential stands for: the key, or the application holding the token. */
export function actorOfPrincipal(principal: Principal): Actor {
  const credential = principal.credential;
  return credential.kind === "api_key"
    ? { kind: "api_key", id: credential.id }
    : { kind: "oauth_app", id: credential.clientId };
}

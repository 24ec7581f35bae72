// CONTRACT 1: answers carrying vendor data are never stored by a cache and never MIME-sniffed.
// Credentials travel in X-Api-Key, which (unlike Authorization) does not keep shared caches off
// by itself (RFC 9111 3.5), so every answer says no-store explicitly, errors included.
import type { FastifyInstance } from "fastify";

export function registerNoStore(scope: FastifyInstance): void {
  scope.addHook("onSend", (_request, reply, payload, done) => {
    reply.header("cache-control", "no-store");
    reply.header("x-content-type-options", "nosniff");
    done(null, payload);
  });
}

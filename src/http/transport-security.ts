// HTTP Strict Transport Security (RFC 6797) in production (NODE_ENV=production, where cookies are
// `Secure` and PUBLIC_URL is served over https): a browser that once reached the service goes on
// using https for two years, subdomains included, so nobody on the network can strip it to plain
// http and read a session cookie or a sign-in form. On every answer, API and pages alike: a browser
// keeps the rule from any of them. Not in development or tests, where the service is plain http on
// localhost and the rule would stick to localhost in the developer's browser.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";

export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

export function registerTransportSecurity(app: FastifyInstance, config: Pick<Config, "env">): void {
  if (config.env !== "production") return;
  // A callback hook: an async one costs every request a promise for nothing (bench/README.md).
  app.addHook("onRequest", (_request, reply, done) => {
    reply.header("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    done();
  });
}

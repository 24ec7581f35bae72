// /docs: the API reference, rendered in the browser by Redoc from /openapi.json. Redoc's
// standalone bundle comes from the npm package and is served by us, so the page loads nothing
// from any other origin.
import fs from "node:fs";
import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";
import { guideNav, pageFrame } from "./page-frame.ts";

const require = createRequire(import.meta.url);
const REDOCLY_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
/**
 * Redoc's menu footer always loads Redocly's logo from their CDN. We serve the bundle with that
 * one URL replaced by an empty data: URL, which fails to load as an image, and Redoc then drops
 * the <img> (its onError), keeping the "API docs by Redocly" text link. A Redoc upgrade that
 * moves the URL fails here at start rather than leaking a request from every reader's browser.
 */
function localRedocBundle(): string {
  const source = fs.readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8");
  if (!source.includes(REDOCLY_LOGO))
    throw new Error("redoc bundle: the Redocly logo URL moved; update reference-page.ts");
  return source.replace(REDOCLY_LOGO, '"data:,"');
}
const redocBundle = localRedocBundle();
const redocVersion = (require("redoc/package.json") as { version: string }).version;
/** Versioned, so the file can be cached for a year: a new Redoc is a new URL. */
export const REDOC_SCRIPT_PATH = `/docs/assets/redoc-${redocVersion}.standalone.js`;

/**
 * Only our own origin, plus what Redoc strictly needs: inline styles (styled-components injects
 * its CSS at run time) and a blob: worker (its search index runs in a worker built from a Blob).
 * Images may be data: URIs (Redoc's inline icons, and the logo it would fetch, see above). No inline script: the page starts Redoc
 * through the <redoc spec-url> element the bundle looks for on load.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export function registerReferencePage(app: FastifyInstance): void {
  const html = pageFrame({
    title: "vendor-api reference",
    nav: guideNav("reference"),
    bodyClass: "reference",
    main: `<redoc spec-url="/openapi.json"></redoc><script src="${REDOC_SCRIPT_PATH}"></script>`,
  });
  app.get("/docs", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/html; charset=utf-8")
      .header("content-security-policy", REFERENCE_CSP)
      .header("cache-control", "no-cache")
      .send(html),
  );
  app.get("/docs/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/docs", 301));
  app.get(REDOC_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(redocBundle),
  );
}

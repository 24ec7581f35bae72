// /docs: the API reference, rendered in the browser by Redoc from /openapi.json. Redoc's
// standalone bundle comes from the npm package and is served by us, so the page loads nothing
// from any other origin.
//
// On the wire (a phone on a slow network reads it too): the bundle's URL carries its content
// hash, so it is cached for a year and a new bundle is a new URL; every text goes Brotli or gzip
// compressed (http/compressed-answer.ts), the bundle precompressed by `npm run build`
// (scripts/copy-assets.mjs, into dist/docs/assets/) or, from the sources, once at its first
// request. The page shows a line while the bundle loads.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { contentHash, type EncodedText, encodeText, sendEncoded } from "../http/compressed-answer.ts";
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
const redocHash = contentHash(redocBundle);
const REDOC_FILE = `redoc-${redocHash}.js`;
/** Fingerprinted, so the file can be cached for a year: another bundle is another URL. */
export const REDOC_SCRIPT_PATH = `/docs/assets/${REDOC_FILE}`;
/** What fingerprinted assets answer with. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** Where `npm run build` leaves the bundle's compressed copies: beside the compiled module. */
const precompressedDir = new URL("./assets/", import.meta.url);

/** Writes the bundle's .br and .gz into `dir` (the build's dist/docs/assets/). */
export async function precompressReferenceBundle(dir: string): Promise<string[]> {
  const encoded = await encodeText(redocBundle);
  fs.mkdirSync(dir, { recursive: true });
  const files = [`${REDOC_FILE}.br`, `${REDOC_FILE}.gz`];
  fs.writeFileSync(path.join(dir, files[0] as string), encoded.br);
  fs.writeFileSync(path.join(dir, files[1] as string), encoded.gzip);
  return files;
}

/** The build's copies when they are there (their name holds the hash), else compressed now. */
async function loadBundle(): Promise<EncodedText> {
  try {
    const br = fs.readFileSync(new URL(`${REDOC_FILE}.br`, precompressedDir));
    const gzip = fs.readFileSync(new URL(`${REDOC_FILE}.gz`, precompressedDir));
    return { identity: Buffer.from(redocBundle, "utf8"), br, gzip, hash: redocHash };
  } catch {
    return encodeText(redocBundle);
  }
}
let bundle: Promise<EncodedText> | undefined;

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
    // Redoc replaces the element's content once it has rendered; until then, on a slow network,
    // the reader sees what is coming and where the raw document is.
    main:
      `<redoc spec-url="/openapi.json"><p class="loading">Loading the API reference… ` +
      `The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.</p></redoc>` +
      `<script src="${REDOC_SCRIPT_PATH}"></script>`,
  });
  let page: Promise<EncodedText> | undefined;
  app.get("/docs", { schema: { hide: true } }, async (request, reply) => {
    page ??= encodeText(html);
    // The bundle's compression starts with the page, so it is ready when the script is asked for.
    bundle ??= loadBundle();
    return sendEncoded(
      request,
      reply
        .type("text/html; charset=utf-8")
        .header("content-security-policy", REFERENCE_CSP)
        .header("cache-control", "no-cache"),
      await page,
    );
  });
  app.get("/docs/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/docs", 301));
  app.get(REDOC_SCRIPT_PATH, { schema: { hide: true } }, async (request, reply) => {
    bundle ??= loadBundle();
    return sendEncoded(
      request,
      reply.type("text/javascript; charset=utf-8").header("cache-control", IMMUTABLE),
      await bundle,
    );
  });
}

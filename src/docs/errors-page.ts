import escapeHtml from "escape-html";
import type { FastifyInstance } from "fastify";
import { errorCatalog } from "../errors.ts";

/** The page problem `type` URIs point at: one anchor per error code. */
export function registerErrorsPage(app: FastifyInstance): void {
  const rows = Object.entries(errorCatalog)
    .map(
      ([code, { status, title }]) =>
        `<tr id="${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${status}</td><td>${escapeHtml(title)}</td></tr>`,
    )
    .join("\n");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>vendor-api errors</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .8rem;text-align:left;border-bottom:1px solid #ddd}:target{background:#ffc}</style></head>
<body><h1>Error codes</h1><p>Every error is an RFC 9457 problem details body whose <code>code</code> is one of these.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
  app.get("/docs/errors", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(html),
  );
}

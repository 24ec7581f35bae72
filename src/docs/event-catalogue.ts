// The event catalogue page (/docs/events): every event type a webhook or the event stream can
// carry, what it means, the read scope an OAuth subscriber needs, and a sample of the body a
// delivery POSTs, its `data` generated from the payload's schema (event-samples.ts). Made once
// per process, like the guides: the catalogue does not change while the process runs.
import escapeHtml from "escape-html";
import type { FastifyInstance } from "fastify";
import { type EncodedText, encodeText, sendEncoded } from "../http/compressed-answer.ts";
import { eventSamples } from "./event-samples.ts";
import { renderMarkdown } from "./guides.ts";
import { guideNav, pageFrame } from "./page-frame.ts";

export const EVENTS_PAGE = "/docs/events";

function catalogueBody(): string {
  const samples = eventSamples();
  const index = samples.map(
    (s) => `<li><a href="#${escapeHtml(s.type)}"><code>${escapeHtml(s.type)}</code></a></li>`,
  );
  const sections = samples.map(
    (s) => `<section class="event" id="${escapeHtml(s.type)}"><h2><code>${escapeHtml(s.type)}</code></h2>
${renderMarkdown(s.description)}
<p>${s.scope ? `OAuth subscribers need <code>${escapeHtml(s.scope)}</code>.` : "Sent to one webhook only; not subscribable."}</p>
<pre><code class="language-json">${escapeHtml(JSON.stringify(s.body, null, 2))}</code></pre></section>`,
  );
  return `<h1>Event catalogue</h1>
${renderMarkdown(`Every event vendor-api sends, with a sample of the body a webhook delivery POSTs (the event stream's
\`data:\` lines carry the same \`{ id, event, data }\`). Each sample's \`data\` is generated from the
payload's schema, the one the [reference](/docs) publishes in its \`webhooks\` section, so every
field there can be is shown, optional ones too. Subscribe to any of them by name, or to all of
them, now and later, with \`"events": ["*"]\` ([Webhooks](/docs/guides/webhooks)).`)}
<ul>${index.join("")}</ul>
${sections.join("\n")}`;
}

let page: Promise<EncodedText> | undefined;

export function registerEventCatalogue(app: FastifyInstance, csp: string): void {
  app.get(EVENTS_PAGE, { schema: { hide: true } }, async (request, reply) => {
    page ??= encodeText(
      pageFrame({
        title: "Event catalogue · vendor-api",
        nav: guideNav("events"),
        bodyClass: "guide",
        main: catalogueBody(),
      }),
    );
    return sendEncoded(
      request,
      reply
        .type("text/html; charset=utf-8")
        .header("content-security-policy", csp)
        .header("cache-control", "no-cache"),
      await page,
    );
  });
}

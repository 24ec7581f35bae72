// The guides: markdown kept in the repo (docs/guides/*.md), rendered once per process with `marked`.
// Raw HTML in the markdown is not trusted: it is escaped and shown as text. The errors guide
// gets its list of codes generated from the error catalog, and is also the page that problem
// `type` URIs point at (/docs/errors#<code>).
import fs from "node:fs";
import escapeHtml from "escape-html";
import type { FastifyInstance } from "fastify";
import { Marked } from "marked";
import { type ErrorCode, errorCatalog } from "../errors.ts";
import { type EncodedText, encodeText, sendEncoded } from "../http/compressed-answer.ts";
import { errorRemedies } from "./error-remedies.ts";
import { GUIDES, type GuideEntry, guideNav, pageFrame } from "./page-frame.ts";

const guidesDir = new URL("../../docs/guides/", import.meta.url);
const changelogFile = new URL("../../CHANGELOG.md", import.meta.url);

/** Pages carry only an inline stylesheet: no script, nothing from another origin. */
export const GUIDE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const marked = new Marked({
  gfm: true,
  renderer: {
    // Raw HTML (block or inline) becomes visible text, never markup.
    html: ({ text }) => escapeHtml(text),
  },
});
/** Links may go to the web, to mail, or within the site: never javascript: or data: URLs. */
const SAFE_HREF = /^(?:https?:|mailto:|\/|#)/i;

// Headings get ids (GitHub style) so sections can be linked.
marked.use({
  renderer: {
    link({ href, title, tokens }) {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_HREF.test(href)) return text;
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${titleAttr}>${text}</a>`;
    },
    // Guides carry no images: the page policy loads none from elsewhere. Show the alt text.
    image({ text }) {
      return escapeHtml(text);
    },
    heading({ tokens, depth, text }) {
      const id = text
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, "")
        .trim()
        .replace(/ +/g, "-");
      return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
    },
  },
});

export function renderMarkdown(source: string): string {
  return marked.parse(source, { async: false });
}

/** Inline markdown of a remedy (code spans) rendered safely. */
function inline(text: string): string {
  return marked.parseInline(text, { async: false });
}

export function errorCodesHtml(): string {
  return (Object.keys(errorCatalog) as ErrorCode[])
    .map((code) => {
      const { status, title } = errorCatalog[code];
      const { cause, remedy } = errorRemedies[code];
      return `<section class="error-code" id="${escapeHtml(code)}"><h3><code>${escapeHtml(code)}</code> · ${status}</h3>
<dl><dt>Title</dt><dd>${escapeHtml(title)}</dd><dt>Cause</dt><dd>${inline(cause)}</dd><dt>Remedy</dt><dd>${inline(remedy)}</dd></dl></section>`;
    })
    .join("\n");
}

function guideBody(name: string): string {
  const markdown = fs.readFileSync(new URL(`${name}.md`, guidesDir), "utf8");
  let html = renderMarkdown(markdown);
  if (name === "errors") html += `<h2 id="codes">Every code</h2>\n${errorCodesHtml()}`;
  if (name === "versioning") html += `<h2 id="changelog">Changelog</h2>\n${renderMarkdown(changelogBody())}`;
  return html;
}

/** CHANGELOG.md without its own title (the guide has one), headings moved one level down. */
function changelogBody(): string {
  return fs
    .readFileSync(changelogFile, "utf8")
    .replace(/^# .*\n/, "")
    .replace(/^(#+) /gm, "$1# ");
}

/**
 * A guide's whole page, made on its first request and kept for the process: the files and the
 * error catalog it is made of do not change while the process runs. Made when each app was built
 * instead, it cost every start ~30-70 ms of CPU (marked), and the test suite builds an app for
 * each of its ~180 files.
 */
const guidePages = new Map<string, string>();
function guidePage(guide: GuideEntry): string {
  let html = guidePages.get(guide.name);
  if (html === undefined) {
    html = pageFrame({
      title: `${guide.title} · vendor-api guides`,
      nav: guideNav(guide.name),
      bodyClass: "guide",
      main: guideBody(guide.name),
    });
    guidePages.set(guide.name, html);
  }
  return html;
}

export function registerGuides(app: FastifyInstance): void {
  const encoded = new Map<string, Promise<EncodedText>>();
  const send =
    (guide: GuideEntry) =>
    async (request: import("fastify").FastifyRequest, reply: import("fastify").FastifyReply) => {
      let page = encoded.get(guide.name);
      if (!page) {
        page = encodeText(guidePage(guide));
        encoded.set(guide.name, page);
      }
      return sendEncoded(
        request,
        reply
          .type("text/html; charset=utf-8")
          .header("content-security-policy", GUIDE_CSP)
          .header("cache-control", "no-cache"),
        await page,
      );
    };
  for (const guide of GUIDES) {
    app.get(`/docs/guides/${guide.name}`, { schema: { hide: true } }, send(guide));
    // The page problem `type` URIs point at: the errors guide, one anchor per code.
    if (guide.name === "errors") app.get("/docs/errors", { schema: { hide: true } }, send(guide));
  }
}

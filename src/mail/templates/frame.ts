// The frame every mail's HTML part shares: no image, no script, no remote resource, inline styles
// only (mail clients drop style sheets), and the footer with the unsubscribe link for customers.
import { html, SafeHtml } from "../../lib/html.ts";

export function mailFrame(input: {
  heading: string;
  body: SafeHtml;
  footer?: SafeHtml;
  /** The reader's language, for `<html lang>`. */
  lang?: string;
}): SafeHtml {
  return html`<!doctype html>
<html${input.lang ? html` lang="${input.lang}"` : ""}><head><meta charset="utf-8"><title>${input.heading}</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;color:#222;max-width:36rem;margin:1rem auto;padding:0 1rem">
<h1 style="font-size:1.3rem">${input.heading}</h1>
${input.body}
${input.footer ? html`<hr style="border:0;border-top:1px solid #ddd;margin-top:2rem"><p style="color:#666;font-size:.85rem">${input.footer}</p>` : ""}
</body></html>`;
}

/** A link as a button-like anchor; `href` is escaped like any value. */
export function mailLink(href: string, label: string): SafeHtml {
  return html`<p><a href="${href}" style="display:inline-block;padding:.5rem 1rem;background:#234;color:#fff;text-decoration:none;border-radius:4px">${label}</a></p>`;
}

/** Text with its line breaks kept (a customer's or a shop's message). */
export function paragraphs(text: string): SafeHtml {
  return new SafeHtml(
    text
      .split(/\r?\n\r?\n/)
      .map(
        (p) => html`<p>${p.split(/\r?\n/).map((line, i) => (i === 0 ? line : html`<br>${line}`))}</p>`.value,
      )
      .join("\n"),
  );
}

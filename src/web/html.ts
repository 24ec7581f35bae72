// The page kit's HTML: the auto-escaping `html` template (its home is src/lib/html.ts, shared with
// mail bodies) and the frame every server-rendered page shares, in its reader's language.
import { html, SafeHtml } from "../lib/html.ts";
import { englishReader, type Reader } from "./reader.ts";

export { html, SafeHtml } from "../lib/html.ts";

const styles = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222;overflow-wrap:anywhere}
label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{padding:.5rem 1.2rem;font:inherit;margin:1rem .5rem 0 0;cursor:pointer}.error{color:#a00}
ul.scopes li{margin:.3rem 0}.muted{color:#666;font-size:.9rem}`;

/**
 * The page frame every server-rendered page outside the dashboard shares: `<html lang>` of its
 * reader, the product's name (PRODUCT_NAME) in the title, no script, no third-party resource.
 * Without a reader (a page not yet translated), English and the default product name.
 */
export function layout(title: string, body: SafeHtml, reader: Reader = englishReader): string {
  return html`<!doctype html>
<html lang="${reader.t.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${reader.productName}</title><style>${new SafeHtml(styles)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

export function errorPage(title: string, message: string, reader: Reader = englishReader): string {
  return layout(title, html`<h1>${title}</h1><p class="error">${message}</p>`, reader);
}

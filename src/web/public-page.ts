// The frame of the pages a shop's customers and visitors see without signing in (the tracking
// page, the hosted inquiry form): the dashboard's stylesheet, no navigation, no script.
import { html, type SafeHtml } from "./html.ts";

/**
 * `indexable: false` asks search engines to stay away: a tracking link is a bearer secret, while a
 * shop's inquiry form is meant to be found.
 */
export function publicPage(title: string, body: SafeHtml, options: { indexable: boolean }): string {
  const robots = options.indexable
    ? html``
    : html`
<meta name="robots" content="noindex, nofollow">`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${robots}
<title>${title}</title>
<link rel="stylesheet" href="/assets/dashboard.css"></head>
<body class="public">
<main class="narrow">
${body}
</main>
</body></html>`.value;
}

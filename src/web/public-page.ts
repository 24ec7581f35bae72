// The frame of the pages a shop's customers and visitors see without signing in (the tracking
// page, the hosted inquiry form, the unsubscribe page): the dashboard's stylesheet, no
// navigation, no script, in the reader's language and under the shop's brand (name, logo, accent
// colour, and its address, phone and contact e-mail at the foot). The product's own name shows
// nowhere here: these are the shop's pages.
import { html, type SafeHtml } from "./html.ts";

/** The shop's brand as its customer pages show it; absent parts are left out. */
export interface PageBrand {
  name: string;
  logoUrl?: string | null;
  /** #rrggbb, or null for the stylesheet's colour. */
  accentColor?: string | null;
  address?: string | null;
  phone?: string | null;
  contactEmail?: string | null;
  /** The "Phone: …" line and the logo's text alternative, in the page's language. */
  phoneLine?: string;
  logoAlt?: string;
}

const isHttpsUrl = (url: string | null | undefined): url is string =>
  typeof url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(url);
const isColour = (value: string | null | undefined): value is string =>
  typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value);

function brandHeader(brand: PageBrand): SafeHtml {
  return html`<header class="shop-brand">${
    isHttpsUrl(brand.logoUrl)
      ? html`<img class="shop-logo" src="${brand.logoUrl}" alt="${brand.logoAlt ?? brand.name}" style="max-height:64px;max-width:100%">`
      : html`<p class="shop-name"><strong>${brand.name}</strong></p>`
  }</header>`;
}

function brandFooter(brand: PageBrand): SafeHtml {
  const lines: Array<SafeHtml | string> = [html`<strong>${brand.name}</strong>`];
  for (const line of (brand.address ?? "").split(/\r?\n/)) if (line.trim()) lines.push(line);
  if (brand.phone) lines.push(brand.phoneLine ?? brand.phone);
  if (brand.contactEmail) lines.push(html`<a href="mailto:${brand.contactEmail}">${brand.contactEmail}</a>`);
  return html`<footer class="shop-contact muted" style="margin-top:2rem;overflow-wrap:anywhere">${lines.map((l, i) => (i === 0 ? l : html`<br>${l}`))}</footer>`;
}

/**
 * `indexable: false` asks search engines to stay away: a tracking link is a bearer secret, while a
 * shop's inquiry form is meant to be found. `lang` is the page's BCP 47 language.
 */
export function publicPage(
  title: string,
  body: SafeHtml,
  options: { indexable: boolean; lang?: string; brand?: PageBrand | null },
): string {
  const robots = options.indexable
    ? html``
    : html`
<meta name="robots" content="noindex, nofollow">`;
  const brand = options.brand ?? null;
  const accent = brand && isColour(brand.accentColor) ? brand.accentColor : null;
  const style = accent
    ? html`
<style>:root{--accent:${accent}}button.primary,.actions .primary{background:${accent};border-color:${accent}}.shop-brand{border-bottom:3px solid ${accent}}</style>`
    : html``;
  return html`<!doctype html>
<html lang="${options.lang ?? "en"}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${robots}
<title>${title}</title>
<link rel="stylesheet" href="/assets/dashboard.css">${style}</head>
<body class="public">
<main class="narrow">
${brand ? brandHeader(brand) : ""}
${body}
${brand ? brandFooter(brand) : ""}
</main>
</body></html>`.value;
}

// One small frame for every docs page: a header with navigation between the reference and the
// guides, and a stylesheet that keeps a 390 px phone free of sideways scrolling (long words
// wrap; code blocks and tables scroll inside their own box).
import escapeHtml from "escape-html";

export interface GuideEntry {
  name: string;
  title: string;
}

/** The guides, in reading order: docs/guides/<name>.md. */
export const GUIDES: readonly GuideEntry[] = [
  { name: "quick-start", title: "Quick start" },
  { name: "authentication", title: "Authentication" },
  { name: "webhooks", title: "Webhooks" },
  { name: "event-stream", title: "Event stream" },
  { name: "pagination-and-sync", title: "Pagination and sync" },
  { name: "idempotency", title: "Idempotency" },
  { name: "errors", title: "Errors" },
  { name: "rate-limits", title: "Rate limits" },
  { name: "versioning", title: "Versioning and changelog" },
];

export function guideNav(current: string): string {
  const link = (href: string, label: string, name: string) =>
    `<a href="${href}"${name === current ? ' aria-current="page"' : ""}>${escapeHtml(label)}</a>`;
  return [
    link("/docs", "API reference", "reference"),
    ...GUIDES.map((g) => link(`/docs/guides/${g.name}`, g.title, g.name)),
    link("/docs/events", "Event catalogue", "events"),
  ].join("");
}

const STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#fff}
header{background:#1d2330;color:#fff;padding:.6rem 1rem}
header .brand{font-weight:700;margin-right:1rem;color:#fff;text-decoration:none}
header nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem;margin-top:.3rem}
header nav a{color:#c9d4ff;text-decoration:none;font-size:.95rem}
header nav a[aria-current=page]{color:#fff;text-decoration:underline}
main.guide{max-width:52rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
main.guide pre{overflow-x:auto;background:#f4f5f8;padding:.8rem;border-radius:6px;font-size:.85rem;line-height:1.45}
main.guide code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
main.guide :not(pre)>code{background:#f4f5f8;padding:.05rem .25rem;border-radius:3px}
main.guide table{display:block;overflow-x:auto;border-collapse:collapse;max-width:100%}
main.guide td code{white-space:nowrap}
main.guide td,main.guide th{padding:.3rem .6rem;border-bottom:1px solid #dde;text-align:left;vertical-align:top}
main.guide h1{font-size:1.8rem;line-height:1.25}
main.guide h2{margin-top:2rem;border-bottom:1px solid #eee}
main.guide a{color:#2449c9}
main.guide .error-code{border-top:1px solid #dde;padding:.4rem 0}
main.guide .error-code:target{background:#fff7cc}
main.guide dl{margin:.3rem 0}main.guide dt{font-weight:600}main.guide dd{margin:0 0 .4rem 0}
main.reference{padding:0}main.reference .loading{padding:1rem}`;

export function pageFrame(page: { title: string; nav: string; main: string; bodyClass: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title><style>${STYLE}</style></head>
<body><header><a class="brand" href="/docs">vendor-api</a><nav aria-label="Documentation">${page.nav}</nav></header>
<main class="${page.bodyClass}">${page.main}</main></body></html>`;
}

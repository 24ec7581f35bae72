// The frame of every signed-in dashboard page: navigation, flash message, sign-out form.
// Everything interpolated goes through `html`, which escapes it.

import { csrfField } from "./browser-scope.ts";
import type { Flash } from "./flash.ts";
import { html, type SafeHtml } from "./html.ts";

export type Section =
  | "orders"
  | "customers"
  | "appointments"
  | "inquiries"
  | "api-keys"
  | "applications"
  | "connected-apps"
  | "webhooks"
  | "account";

const nav: Array<[Section, string, string]> = [
  ["orders", "Orders", "/dashboard/orders"],
  ["customers", "Customers", "/dashboard/customers"],
  ["appointments", "Appointments", "/dashboard/appointments"],
  ["inquiries", "Inquiries", "/dashboard/inquiries"],
  ["api-keys", "API keys", "/dashboard/integrations/api-keys"],
  ["applications", "Applications", "/dashboard/integrations/applications"],
  ["connected-apps", "Connected apps", "/dashboard/integrations/connected-apps"],
  ["webhooks", "Webhooks", "/dashboard/integrations/webhooks"],
  ["account", "Account", "/dashboard/account"],
];

export interface PageContext {
  vendorName: string;
  /** CSRF token for every form on the page (the sign-out form included). */
  csrf: string;
  flash?: Flash | undefined;
}

export function dashboardPage(page: PageContext, section: Section, title: string, body: SafeHtml): string {
  const flash = page.flash;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${page.vendorName} · vendor-api</title>
<link rel="stylesheet" href="/assets/dashboard.css"></head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">${page.vendorName}</a>
  <nav class="main" aria-label="Dashboard">
    ${nav.map(([key, label, href]) => html`<a href="${href}" ${key === section ? html`aria-current="page"` : ""}>${label}</a>`)}
  </nav>
  <form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">Sign out</button></form>
</header>
<main>
${flash ? html`<div class="flash ${flash.kind}" role="status">${flash.message}${flash.secret ? html`<p class="secret" data-secret>${flash.secret}</p><p class="muted">Copy it now: it is shown only once. <button type="button" data-copy hidden>Copy</button></p><script src="/assets/copy-secret.js" defer></script>` : ""}</div>` : ""}
<h1>${title}</h1>
${body}
</main>
</body></html>`.value;
}

/** A "next page" link for cursor-paged lists; nothing on the last page. */
export function pager(
  basePath: string,
  nextCursor: string | null,
  params: Record<string, string> = {},
): SafeHtml {
  if (!nextCursor) return html``;
  const query = new URLSearchParams({ ...params, cursor: nextCursor }).toString();
  return html`<div class="pager"><a href="${basePath}">First page</a><a class="button" href="${basePath}?${query}">Next page →</a></div>`;
}

export function emptyState(message: string, action?: SafeHtml): SafeHtml {
  return html`<div class="empty"><p>${message}</p>${action ?? ""}</div>`;
}

/** A timestamp shown to people: UTC, minute precision, machine-readable in the datetime attribute. */
export function time(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">–</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
}

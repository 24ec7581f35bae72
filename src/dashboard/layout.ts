// The frame of every signed-in dashboard page: navigation, flash message, sign-out form.
// Everything interpolated goes through `html`, which escapes it.

import { type Action, may } from "../auth/member-policy.ts";
import { formatInZone } from "../lib/time-zone.ts";
import type { SessionMember } from "../modules/sessions/sessions.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import type { Flash } from "../web/flash.ts";
import { html, type SafeHtml } from "../web/html.ts";

export type Section =
  | "orders"
  | "customers"
  | "appointments"
  | "inquiries"
  | "integrations"
  | "api-keys"
  | "applications"
  | "connected-apps"
  | "webhooks"
  | "sandbox"
  | "settings"
  | "activity"
  | "team"
  | "account";

/** The sections of the Integrations landing page: highlighted as "Integrations" in the menu. */
const integrationSections = new Set<Section>([
  "integrations",
  "api-keys",
  "applications",
  "connected-apps",
  "webhooks",
  "sandbox",
]);

// Seven entries that wrap to two short rows on a phone; the integration pages live under one entry
// (Dashboard → Integrations → API keys), as the spec and the docs name them.
// Each entry shows only to members whose role may use it (src/auth/member-policy.ts).
const nav: Array<[Section, string, string, Action]> = [
  ["orders", "Orders", "/dashboard/orders", "shop-work"],
  ["customers", "Customers", "/dashboard/customers", "shop-work"],
  ["appointments", "Appointments", "/dashboard/appointments", "shop-work"],
  ["inquiries", "Inquiries", "/dashboard/inquiries", "shop-work"],
  ["integrations", "Integrations", "/dashboard/integrations", "integrations"],
  ["settings", "Settings", "/dashboard/settings", "settings"],
  ["activity", "Activity", "/dashboard/activity", "activity"],
];

/** The Integrations section's own tabs, shown on each of its pages. */
const integrationTabs: Array<[Section, string, string]> = [
  ["integrations", "Overview", "/dashboard/integrations"],
  ["api-keys", "API keys", "/dashboard/integrations/api-keys"],
  ["applications", "Applications", "/dashboard/integrations/applications"],
  ["connected-apps", "Connected apps", "/dashboard/integrations/connected-apps"],
  ["webhooks", "Webhooks", "/dashboard/integrations/webhooks"],
  ["sandbox", "Sandbox", "/dashboard/integrations/sandbox"],
];

function subNav(section: Section): SafeHtml {
  if (!integrationSections.has(section)) return html``;
  return html`<nav class="tabs" aria-label="Integrations">${integrationTabs.map(
    ([key, label, href]) =>
      html`<a href="${href}"${key === section ? html` aria-current="page"` : ""}>${label}</a>`,
  )}</nav>`;
}

function isCurrent(key: Section, section: Section): boolean {
  if (key === "integrations") return integrationSections.has(section);
  if (key === "settings") return section === "settings" || section === "team" || section === "account";
  return key === section;
}

export interface PageContext {
  vendorName: string;
  /** CSRF token for every form on the page (the sign-out form included). */
  csrf: string;
  flash?: Flash | undefined;
  /** The shop's IANA time zone: every time on the page is shown in it. */
  timeZone: string;
  /** Who is signed in: the menu shows what their role may use. */
  member: SessionMember;
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
    ${nav
      .filter(([, , , action]) => may(page.member.role, action))
      .map(
        ([key, label, href]) =>
          html`<a href="${href}" ${isCurrent(key, section) ? html`aria-current="page"` : ""}>${label}</a>`,
      )}
  </nav>
  <nav class="user" aria-label="Account"><a href="/dashboard/account"${section === "account" ? html` aria-current="page"` : ""}>Account</a></nav>
  <form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">Sign out</button></form>
</header>
<main>
${flash ? html`<div class="flash ${flash.kind}" role="status">${flash.message}${flash.secret ? html`<p class="secret" data-secret>${flash.secret}</p><p class="muted">Copy it now: it is shown only once. <button type="button" data-copy hidden>Copy</button></p><script src="/assets/copy-secret.js" defer></script>` : ""}</div>` : ""}
${subNav(section)}
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

/**
 * A timestamp shown to people: in the shop's time zone (named after it), minute precision, and
 * machine-readable (UTC) in the datetime attribute.
 */
export function time(iso: string | Date | null | undefined, timeZone: string): SafeHtml {
  if (!iso) return html`<span class="muted">–</span>`;
  const at = typeof iso === "string" ? new Date(iso) : iso;
  return html`<time datetime="${at.toISOString()}">${formatInZone(at, timeZone)}</time>`;
}

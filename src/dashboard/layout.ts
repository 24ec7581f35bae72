// The frame of every signed-in dashboard page: navigation, flash message, sign-out form.
// Everything interpolated goes through `html`, which escapes it.

import { type Action, may } from "../auth/member-policy.ts";
import type { Translator } from "../i18n/translator.ts";
import type { SessionMember } from "../modules/sessions/sessions.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import type { Flash } from "../web/flash.ts";
import { html, type SafeHtml } from "../web/html.ts";

export type Section =
  | "today"
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
// Labels are catalogue keys (dashboard.nav.*).
const nav: Array<[Section, string, string, Action]> = [
  ["today", "today.title", "/dashboard/today", "shop-work"],
  ["orders", "dashboard.nav.orders", "/dashboard/orders", "shop-work"],
  ["customers", "dashboard.nav.customers", "/dashboard/customers", "shop-work"],
  ["appointments", "dashboard.nav.appointments", "/dashboard/appointments", "shop-work"],
  ["inquiries", "dashboard.nav.inquiries", "/dashboard/inquiries", "shop-work"],
  ["integrations", "dashboard.nav.integrations", "/dashboard/integrations", "integrations"],
  ["settings", "dashboard.nav.settings", "/dashboard/settings", "settings"],
  ["activity", "dashboard.nav.activity", "/dashboard/activity", "activity"],
];

/** The Integrations section's own tabs, shown on each of its pages. */
const integrationTabs: Array<[Section, string, string]> = [
  ["integrations", "dashboard.nav.overview", "/dashboard/integrations"],
  ["api-keys", "dashboard.nav.apiKeys", "/dashboard/integrations/api-keys"],
  ["applications", "dashboard.nav.applications", "/dashboard/integrations/applications"],
  ["connected-apps", "dashboard.nav.connectedApps", "/dashboard/integrations/connected-apps"],
  ["webhooks", "dashboard.nav.webhooks", "/dashboard/integrations/webhooks"],
  ["sandbox", "dashboard.nav.sandbox", "/dashboard/integrations/sandbox"],
];

function subNav(t: Translator, section: Section): SafeHtml {
  if (!integrationSections.has(section)) return html``;
  return html`<nav class="tabs" aria-label="${t.t("dashboard.nav.integrations")}">${integrationTabs.map(
    ([key, label, href]) =>
      html`<a href="${href}"${key === section ? html` aria-current="page"` : ""}>${t.t(label)}</a>`,
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
  /** The member's language (their own, else the shop's): every text of the page through it. */
  t: Translator;
  /** The product's name (PRODUCT_NAME) in the window title. */
  productName: string;
}

export function dashboardPage(page: PageContext, section: Section, title: string, body: SafeHtml): string {
  const { flash, t } = page;
  return html`<!doctype html>
<html lang="${t.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${page.vendorName} · ${page.productName}</title>
<link rel="stylesheet" href="/assets/dashboard.css"></head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">${page.vendorName}</a>
  <nav class="main" aria-label="${t.t("dashboard.nav.label")}">
    ${nav
      .filter(([, , , action]) => may(page.member.role, action))
      .map(
        ([key, label, href]) =>
          html`<a href="${href}" ${isCurrent(key, section) ? html`aria-current="page"` : ""}>${t.t(label)}</a>`,
      )}
  </nav>
  <nav class="user" aria-label="${t.t("dashboard.nav.account")}"><a href="/dashboard/account"${section === "account" ? html` aria-current="page"` : ""}>${t.t("dashboard.nav.account")}</a></nav>
  <form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">${t.t("dashboard.nav.signOut")}</button></form>
</header>
<main>
${flash ? html`<div class="flash ${flash.kind}" role="status">${flash.message}${flash.secret ? html`<p class="secret" data-secret>${flash.secret}</p><p class="muted">${t.t("dashboard.layout.copyNow")} <button type="button" data-copy hidden>${t.t("dashboard.layout.copy")}</button></p><script src="/assets/copy-secret.js" defer></script>` : ""}</div>` : ""}
${subNav(t, section)}
<h1>${title}</h1>
${body}
</main>
</body></html>`.value;
}

/** A "next page" link for cursor-paged lists; nothing on the last page. */
export function pager(
  t: Translator,
  basePath: string,
  nextCursor: string | null,
  params: Record<string, string> = {},
): SafeHtml {
  if (!nextCursor) return html``;
  const query = new URLSearchParams({ ...params, cursor: nextCursor }).toString();
  // The first page keeps the filters the next one carries.
  const first = new URLSearchParams(params).toString();
  return html`<div class="pager"><a href="${first ? `${basePath}?${first}` : basePath}">${t.t("dashboard.layout.firstPage")}</a><a class="button" href="${basePath}?${query}">${t.t("dashboard.layout.nextPage")}</a></div>`;
}

export function emptyState(message: string, action?: SafeHtml): SafeHtml {
  return html`<div class="empty"><p>${message}</p>${action ?? ""}</div>`;
}

/**
 * A timestamp shown to people: in the shop's time zone (named after it), minute precision, in the
 * reader's language, and machine-readable (UTC) in the datetime attribute.
 */
export function time(iso: string | Date | null | undefined, timeZone: string, t: Translator): SafeHtml {
  if (!iso) return html`<span class="muted">–</span>`;
  const at = typeof iso === "string" ? new Date(iso) : iso;
  return html`<time datetime="${at.toISOString()}">${shownAt(at, timeZone, t)}</time>`;
}

/** An instant as text, through Intl in the reader's language ("2. Jan. 2030, 10:00 UTC"). */
export function shownAt(at: Date, timeZone: string, t: Translator): string {
  return t.dateTime(at, timeZone, shownDateTime);
}

/** A date and time as the dashboard shows them: short date, minutes, the zone's short name. */
export const shownDateTime: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short",
};

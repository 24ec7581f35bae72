// The webhooks section's address, its events checkboxes and health cell, shared by the list and
// one webhook's page, so neither page imports the other.
import type { Translator } from "../../i18n/translator.ts";
import { eventTypes } from "../../modules/events/catalog.ts";
import { isFailing, type WebhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { ALL_EVENTS } from "../../modules/webhooks/webhooks.schemas.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { time } from "../layout.ts";
import { say } from "./text.ts";

export const WEBHOOKS = "/dashboard/integrations/webhooks";

/**
 * The events a webhook subscribes to: "All events" (`*`, every type present and future; CONTRACT
 * 12), or the types ticked one by one. Ticking "All events" with others keeps `*` alone.
 */
export function eventCheckboxes(checked: readonly string[], t: Translator) {
  const all = checked.includes(ALL_EVENTS);
  return html`<fieldset><legend>${say(t, "webhooks.events")}</legend>
<label class="check all-events"><input type="checkbox" name="events" value="${ALL_EVENTS}" ${all ? html`checked` : ""}> <strong>${t.t("deliveries.allEvents")}</strong> <span class="muted">${t.t("deliveries.allEventsHint")}</span></label>
${eventTypes.map(
  (e) =>
    html`<label class="check"><input type="checkbox" name="events" value="${e}" ${checked.includes(e) ? html`checked` : ""}> <code>${e}</code></label>`,
)}</fieldset>`;
}

/** A webhook's subscription as badges: "All events" for `*`. */
export function eventBadges(events: readonly string[], t: Translator) {
  if (events.includes(ALL_EVENTS)) {
    return html`<span class="badge" data-events="all">${t.t("deliveries.allEvents")}</span>`;
  }
  return html`${events.map((e) => html`<span class="badge">${e}</span> `)}`;
}

/**
 * A webhook's health as a vendor reads it: failing (an attempt or a delivery failed since the
 * last success), retrying, disabled (and why), or healthy, with the last success. ACTIVE alone
 * says nothing about a URL that has answered 500 for a week.
 */
export function healthCell(
  hook: { status: string; disabledReason: string | null },
  health: WebhookHealth | undefined,
  timeZone: string,
  t: Translator,
): SafeHtml {
  const failures = health?.failuresInARow ?? 0;
  const givenUp = health?.givenUp ?? 0;
  const state =
    hook.status !== "ACTIVE"
      ? html`<span class="health bad" data-health="disabled">${say(t, "health.notDelivering")}</span>${hook.disabledReason ? html`<div class="muted">${hook.disabledReason}</div>` : ""}`
      : isFailing(health)
        ? html`<span class="health bad" data-health="failing">${say(t, "health.failing")}</span>`
        : (health?.retrying ?? 0) > 0
          ? html`<span class="health warn" data-health="retrying">${say(t, "health.retrying")}</span>`
          : html`<span class="health ok" data-health="healthy">${say(t, "health.healthy")}</span>`;
  return html`<span class="badge">${hook.status}</span> ${state}<div class="muted">${say(t, "health.lastSuccess")} ${time(health?.lastSuccessAt, timeZone, t)}</div>
<div class="muted" data-failures="${failures}">${say(t, "health.failuresInARow", { count: failures })}</div>${
    givenUp > 0
      ? html`
<div class="muted" data-given-up="${givenUp}">${say(t, "health.givenUp", { count: givenUp })}</div>`
      : ""
  }`;
}

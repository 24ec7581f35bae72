// The webhooks section's address, its events checkboxes and health cell, shared by the list and
// one webhook's page, so neither page imports the other.
import { eventTypes } from "../../modules/events/catalog.ts";
import { isFailing, type WebhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { time } from "../layout.ts";

export const WEBHOOKS = "/dashboard/integrations/webhooks";

export function eventCheckboxes(checked: readonly string[] = []) {
  return html`<fieldset><legend>Events</legend>${eventTypes.map(
    (e) =>
      html`<label class="check"><input type="checkbox" name="events" value="${e}" ${checked.includes(e) ? html`checked` : ""}> <code>${e}</code></label>`,
  )}</fieldset>`;
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
): SafeHtml {
  const failures = health?.failuresInARow ?? 0;
  const givenUp = health?.givenUp ?? 0;
  const state =
    hook.status !== "ACTIVE"
      ? html`<span class="health bad" data-health="disabled">Not delivering</span>${hook.disabledReason ? html`<div class="muted">${hook.disabledReason}</div>` : ""}`
      : isFailing(health)
        ? html`<span class="health bad" data-health="failing">Failing</span>`
        : (health?.retrying ?? 0) > 0
          ? html`<span class="health warn" data-health="retrying">Retrying</span>`
          : html`<span class="health ok" data-health="healthy">Healthy</span>`;
  return html`<span class="badge">${hook.status}</span> ${state}<div class="muted">Last success: ${time(health?.lastSuccessAt, timeZone)}</div>
<div class="muted" data-failures="${failures}">Failures in a row: ${failures}</div>${
    givenUp > 0
      ? html`
<div class="muted" data-given-up="${givenUp}">Deliveries given up since: ${givenUp}</div>`
      : ""
  }`;
}

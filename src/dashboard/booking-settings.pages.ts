// Settings › Online booking (/dashboard/settings/booking), owners only (the settings hook of its
// page group): what GET/PUT /api/vendor/booking/settings read and write, as a form: the address,
// instant confirmation, the reminder, the customer's cut-off, opening hours per weekday (closed,
// or intervals: two rows a day, so a lunch break fits), closed dates and how each appointment type
// is offered. Saving goes through the API's schema and service (booking-settings.form.ts); a
// refusal shows the form again with each field named and the values kept (400), success is a
// 303 back with a flash. Below the form: the shop's hosted booking link and a snippet for its
// website. The time zone stays on the main Settings page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FieldError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import { readBookingSettings, updateBookingSettings } from "../modules/booking/settings.service.ts";
import { allowOwnScripts, csrfField, sendPage } from "../web/browser-scope.ts";
import { formOf } from "../web/form.ts";
import { saveForm } from "../web/form-actions.ts";
import { inputField, selectField, textareaField } from "../web/form-fields.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { readerOf } from "../web/reader.ts";
import {
  type BookingForm,
  bodyOf,
  formOfPost,
  formOfSettings,
  localizedError,
  readingErrors,
} from "./booking-settings.form.ts";
import { bookingLinkSection } from "./booking-settings.link.ts";
import { hoursSection, typesSection } from "./booking-settings.sections.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, type PageContext } from "./layout.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";

export const BOOKING_SETTINGS = "/dashboard/settings/booking";

export async function bookingSettingsPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: BookingForm,
    errors: FieldError[],
  ) => {
    const page = await pageContext(ctx, request, reply);
    const vendorId = vendorIdOf(request);
    const settings = await readBookingSettings(ctx, vendorId);
    allowOwnScripts(reply);
    const body = html`${formBody(page, settings.timeZone, form, errors)}
${await bookingLinkSection(ctx, page.t, vendorId, config.publicUrl)}`;
    return sendPage(
      reply,
      status,
      dashboardPage(page, "settings", page.t.t("dashboard.bookingSettings.title"), body),
    );
  };

  app.get(BOOKING_SETTINGS, { schema: { hide: true } }, async (request, reply) => {
    const settings = await readBookingSettings(ctx, vendorIdOf(request));
    return show(request, reply, 200, formOfSettings(settings), []);
  });

  app.post(
    BOOKING_SETTINGS,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const { t } = readerOf(request);
      const typed = formOfPost(formOf(request));
      const { body, errors, rows } = bodyOf(typed);
      const current = await readBookingSettings(ctx, vendorIdOf(request));
      const refused = readingErrors(current, body, errors);
      return saveForm(
        reply,
        config,
        refused,
        async () => {
          await updateBookingSettings(ctx, vendorIdOf(request), body);
          return { message: t.t("dashboard.bookingSettings.saved"), location: BOOKING_SETTINGS };
        },
        (status, errs) =>
          show(
            request,
            reply,
            status,
            typed,
            errs.map((e) => localizedError(t, e, body, rows)),
          ),
      );
    },
  );
}

/** The errors above the form, each a link to its control, so a long form says where to look. */
function errorSummary(t: Translator, errors: readonly FieldError[], labels: Map<string, string>): SafeHtml {
  if (errors.length === 0) return html``;
  return html`<div class="field-error" role="alert" id="booking-errors"><p>${t.t("dashboard.bookingSettings.errors.check")}</p>
<ul>${errors.map((e) => html`<li><a href="#${e.field}">${labels.get(e.field) ?? e.field}</a>: ${e.message}</li>`)}</ul></div>`;
}

function formBody(page: PageContext, timeZone: string, f: BookingForm, errors: FieldError[]): SafeHtml {
  const { t } = page;
  const k = (key: string, values?: Record<string, string | number>) =>
    t.t(`dashboard.bookingSettings.${key}`, values);
  const hours = hoursSection(t, f, errors);
  const types = typesSection(t, f, errors);
  const labels = new Map<string, string>([
    ["address", k("address")],
    ["reminderAmount", k("reminder")],
    ["rescheduleCutoffHours", k("cutoff")],
    ["closedDates", k("closedDates")],
    ...hours.labels,
    ...types.labels,
  ]);
  return html`<p class="muted">${k("intro")}</p>
${errorSummary(t, errors, labels)}
<form method="post" action="${BOOKING_SETTINGS}" class="edit-form booking-settings">${csrfField(page.csrf)}
<h2>${k("general")}</h2>
${textareaField({ name: "address", label: k("address"), value: f.address, maxLength: 500, errors })}
<p class="muted">${k("addressHint")}</p>
<label class="check"><input type="checkbox" name="instantConfirmation" value="on"${f.instantConfirmation ? html` checked` : ""}> ${k("instantConfirmation")}</label>
<p class="muted">${k("instantConfirmationHint")}</p>
<div class="pair">
<div>${inputField({ name: "reminderAmount", label: k("reminder"), type: "number", value: f.reminderAmount, required: true, errors })}</div>
<div>${selectField({
    name: "reminderUnit",
    label: k("reminderUnit"),
    value: f.reminderUnit,
    options: [
      ["minutes", k("minutesBefore")],
      ["hours", k("hoursBefore")],
    ],
  })}</div>
</div>
<p class="muted">${k("reminderHint")}</p>
${inputField({ name: "rescheduleCutoffHours", label: k("cutoff"), type: "number", value: f.rescheduleCutoffHours, required: true, errors })}
<p class="muted">${k("cutoffHint")}</p>
<h2>${k("hours")}</h2>
<p class="muted">${k("hoursHint")} ${k("timeZoneNote", { zone: timeZone })} <a href="/dashboard/settings">${k("timeZoneLink")}</a></p>
${hours.html}
${textareaField({ name: "closedDates", label: k("closedDates"), value: f.closedDates, errors })}
<p class="muted">${k("closedDatesHint")}</p>
<h2>${k("types")}</h2>
${types.html}
<div class="actions"><button type="submit" class="primary">${k("save")}</button></div>
</form>`;
}

/** The main Settings page's way here, in the reader's language. */
export function bookingSettingsLink(t: Translator): SafeHtml {
  return html`<h2>${t.t("dashboard.bookingSettings.title")}</h2>
<p class="muted">${t.t("dashboard.bookingSettings.settingsHint")}</p>
<p><a class="button" href="${BOOKING_SETTINGS}">${t.t("dashboard.bookingSettings.title")}</a></p>`;
}

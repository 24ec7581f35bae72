// The two long parts of the Online booking form: opening hours (a fieldset a weekday: "Closed",
// then rows of opens/closes, two unless the API saved more) and the appointment types (a fieldset
// a type). Each returns its markup and a label for every control an error can name, which the
// error summary above the form links to.
import type { FieldError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import { inputField } from "../web/form-fields.ts";
import { html, type SafeHtml } from "../web/html.ts";
import {
  type BookingForm,
  ROWS_PER_DAY,
  TYPES,
  type TypeNumber,
  typeNumbers,
  WEEKDAYS,
} from "./booking-settings.form.ts";

interface Section {
  html: SafeHtml;
  labels: [string, string][];
}

const messagesOf = (errors: readonly FieldError[], fields: readonly string[]) =>
  errors.filter((e) => fields.includes(e.field)).map((e) => e.message);

const invalidIf = (bad: boolean, describedBy: string): SafeHtml =>
  bad ? html` aria-invalid="true" aria-describedby="${describedBy}"` : html``;

/** A time control; "24:00" (midnight at the day's end, which the API accepts) as text. */
function timeInput(id: string, label: string, value: string, bad: boolean, errorId: string): SafeHtml {
  const type = value === "24:00" ? "text" : "time";
  return html`<div><label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="${type}" value="${value}"${invalidIf(bad, errorId)}></div>`;
}

export function hoursSection(t: Translator, f: BookingForm, errors: readonly FieldError[]): Section {
  const k = (key: string, values?: Record<string, string | number>) =>
    t.t(`dashboard.bookingSettings.${key}`, values);
  const labels: [string, string][] = [];
  const days = WEEKDAYS.map((day) => {
    const { closed, rows } = f.days[day];
    const dayName = k(`days.${day}`);
    const shown = Array.from(
      { length: Math.max(ROWS_PER_DAY, rows.length) },
      (_, i) => rows[i] ?? { from: "", to: "" },
    );
    const errorId = `openingHours.${day}-error`;
    const fieldsOfDay = shown.flatMap((_, i) => {
      const base = `openingHours.${day}.${i}`;
      return [base, `${base}.from`, `${base}.to`];
    });
    const messages = messagesOf(errors, fieldsOfDay);
    const controls = shown.map((row, i) => {
      const base = `openingHours.${day}.${i}`;
      const interval = k("interval", { day: dayName, n: i + 1 });
      labels.push(
        [base, interval],
        [`${base}.from`, `${interval}, ${k("opens")}`],
        [`${base}.to`, `${interval}, ${k("closes")}`],
      );
      const rowBad = messagesOf(errors, [base]).length > 0;
      return html`<div class="interval" id="${base}">
${timeInput(`${base}.from`, k("opensN", { n: i + 1 }), row.from, rowBad || messagesOf(errors, [`${base}.from`]).length > 0, errorId)}
${timeInput(`${base}.to`, k("closesN", { n: i + 1 }), row.to, rowBad || messagesOf(errors, [`${base}.to`]).length > 0, errorId)}
</div>`;
    });
    return html`<fieldset class="day" data-day="${day}"><legend>${dayName}</legend>
<label class="check"><input type="checkbox" name="openingHours.${day}.closed" value="on"${closed ? html` checked` : ""}> ${k("closed")}</label>
${controls}
${messages.length > 0 ? html`<p class="field-error" id="${errorId}">${messages.join("; ")}</p>` : ""}
</fieldset>`;
  });
  return { html: html`${days}`, labels };
}

const typeLabels: Record<TypeNumber, string> = {
  duration: "duration",
  bufferAfter: "bufferAfter",
  minNoticeHours: "minNotice",
  maxDaysAhead: "maxDaysAhead",
  capacity: "capacity",
};

export function typesSection(t: Translator, f: BookingForm, errors: FieldError[]): Section {
  const k = (key: string) => t.t(`dashboard.bookingSettings.${key}`);
  const labels: [string, string][] = [];
  const fieldsets = TYPES.map((type) => {
    const v = f.types[type];
    const typeName = t.t(`appointments.types.${type}`);
    const numbers = typeNumbers.map((n) => {
      const name = `types.${type}.${n}`;
      labels.push([name, `${typeName}: ${k(typeLabels[n])}`]);
      return html`<div>${inputField({ name, label: k(typeLabels[n]), type: "number", value: v[n], required: true, errors, ...(n === "minNoticeHours" ? { step: "any" } : {}) })}</div>`;
    });
    return html`<fieldset class="type" data-type="${type}"><legend>${typeName}</legend>
<label class="check"><input type="checkbox" name="types.${type}.online" value="on"${v.online ? html` checked` : ""}> ${k("online")}</label>
<div class="numbers">${numbers}</div>
</fieldset>`;
  });
  return { html: html`${fieldsets}`, labels };
}

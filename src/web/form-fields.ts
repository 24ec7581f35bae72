// Labelled form controls with their errors beside them (aria-invalid + aria-describedby), so
// every create and edit form of the dashboard reads and fails the same way.
import type { FieldError } from "../errors.ts";
import { html, type SafeHtml } from "./html.ts";

interface Control {
  name: string;
  label: string;
  value?: string | undefined;
  required?: boolean;
  errors?: readonly FieldError[];
  hint?: string;
}

function messagesFor(name: string, errors: readonly FieldError[] = []): string[] {
  return errors.filter((e) => e.field === name || e.field.startsWith(`${name}.`)).map((e) => e.message);
}

function errorBlock(name: string, errors?: readonly FieldError[]): SafeHtml {
  const messages = messagesFor(name, errors);
  return messages.length === 0
    ? html``
    : html`<p class="field-error" id="${name}-error">${messages.join("; ")}</p>`;
}

function invalid(name: string, errors?: readonly FieldError[]): SafeHtml {
  return messagesFor(name, errors).length > 0
    ? html` aria-invalid="true" aria-describedby="${name}-error"`
    : html``;
}

export function inputField(
  c: Control & { type?: string; maxLength?: number; placeholder?: string; id?: string; step?: string },
): SafeHtml {
  const id = c.id ?? c.name;
  return html`<label for="${id}">${c.label}</label>${c.hint ? html`<p class="muted hint">${c.hint}</p>` : ""}
<input id="${id}" name="${c.name}" type="${c.type ?? "text"}" value="${c.value ?? ""}"${c.required ? html` required` : ""}${c.maxLength ? html` maxlength="${c.maxLength}"` : ""}${c.placeholder ? html` placeholder="${c.placeholder}"` : ""}${c.step ? html` step="${c.step}"` : ""}${invalid(c.name, c.errors)}>
${errorBlock(c.name, c.errors)}`;
}

export function textareaField(c: Control & { maxLength?: number }): SafeHtml {
  return html`<label for="${c.name}">${c.label}</label>
<textarea id="${c.name}" name="${c.name}"${c.maxLength ? html` maxlength="${c.maxLength}"` : ""}${c.required ? html` required` : ""}${invalid(c.name, c.errors)}>${c.value ?? ""}</textarea>
${errorBlock(c.name, c.errors)}`;
}

export function selectField(
  c: Control & { options: ReadonlyArray<readonly [value: string, label: string]> },
): SafeHtml {
  return html`<label for="${c.name}">${c.label}</label>
<select id="${c.name}" name="${c.name}"${c.required ? html` required` : ""}${invalid(c.name, c.errors)}>
${c.options.map(([value, label]) => html`<option value="${value}"${value === c.value ? html` selected` : ""}>${label}</option>`)}
</select>
${errorBlock(c.name, c.errors)}`;
}

/** Errors that belong to no control of the form (shown above it). */
export function otherErrors(errors: readonly FieldError[], names: readonly string[]): SafeHtml {
  const other = errors.filter((e) => !names.includes(e.field.split(".")[0] ?? ""));
  return other.length === 0
    ? html``
    : html`<p class="field-error">${other.map((e) => `${e.field === "(form)" ? "" : `${e.field} `}${e.message}`).join("; ")}</p>`;
}
